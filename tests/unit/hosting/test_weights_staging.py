"""Gated hub models through the Python API: the token secret goes to a deploy-time staging job, never to the
Model, which loads the staged S3 prefix with network isolation."""

from __future__ import annotations

import json
from typing import Any

import pytest
from aws_cdk import Stack
from aws_cdk import aws_kms as kms
from aws_cdk import aws_secretsmanager as secretsmanager
from aws_cdk.assertions import Match, Template

from inference_constructs import HfTokenSecret, ModelSpec, RealtimeEndpoint, ServerlessEndpoint
from inference_constructs.containers.model_access import looks_like_token
from inference_constructs.errors import InferenceConfigError
from inference_constructs.hosting.staging import BUILD_TIMEOUT, QUERY_INTERVAL, TOTAL_TIMEOUT
from inference_constructs.layout import EndpointFootprint, estimated_resources
from inference_constructs.spec import EndpointKind
from tests.unit.hosting.scenarios import new_app

MODEL = "meta-llama/Llama-3.1-8B-Instruct"
REVISION = "0e9e39f249a16976918f6564b8830bc894c89659"
PREFIX = f"hub-models/{MODEL}/{REVISION}/"
SECRET_ARN = "arn:aws:secretsmanager:us-east-1:111122223333:secret:acme/hf-token-AbCdEf"


def _model(**extra: Any) -> ModelSpec:
    return ModelSpec(id=MODEL, revision=REVISION, parameters_billion=8, **extra)


def _endpoint(**props: Any) -> tuple[Stack, RealtimeEndpoint, Template]:
    stack = Stack(new_app(), "Hosting")
    endpoint = RealtimeEndpoint(stack, "Chat", instance_type="ml.g6e.xlarge", **props)
    return stack, endpoint, Template.from_stack(stack)


def _only(template: Template, type_: str) -> dict[str, Any]:
    found = list(template.find_resources(type_).values())
    assert len(found) == 1, found
    return found[0]  # type: ignore[no-any-return]


def _statements(template: Template, description_start: str) -> list[dict[str, Any]]:
    policies = template.find_resources("AWS::IAM::ManagedPolicy")
    found = [p for p in policies.values() if p["Properties"].get("Description", "").startswith(description_start)]
    assert len(found) == 1
    return found[0]["Properties"]["PolicyDocument"]["Statement"]  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def staged() -> tuple[Stack, RealtimeEndpoint, Template]:
    # GIVEN a gated model with a token secret on the ModelSpec (the Python form of model.hf_token)
    return _endpoint(model=_model(hf_token=HfTokenSecret("acme/hf-token")))


def test_staged_model_loads_the_staged_prefix_with_network_isolation(staged: Any) -> None:
    # WHEN synthesized THEN the Model has network isolation and an uncompressed S3 prefix from the staging resource
    stack, endpoint, template = staged
    model = _only(template, "AWS::SageMaker::Model")["Properties"]
    assert model["EnableNetworkIsolation"] is True
    staging_id = stack.get_logical_id(endpoint.weights_staging.resource.node.default_child)  # type: ignore[union-attr,arg-type]
    assert model["PrimaryContainer"]["ModelDataSource"] == {
        "S3DataSource": {
            "CompressionType": "None",
            "S3DataType": "S3Prefix",
            "S3Uri": {"Fn::GetAtt": [staging_id, "S3Uri"]},
        }
    }
    # AND the container environment holds no token and no secret reference
    env = model["PrimaryContainer"]["Environment"]
    assert "HF_TOKEN" not in env
    assert "resolve:secretsmanager" not in json.dumps(env)
    assert env["HF_MODEL_ID"] == "/opt/ml/model"


def test_the_custom_resource_carries_model_id_revision_and_prefix(staged: Any) -> None:
    # THEN a change of the model id or revision changes the resource's properties, which stages again
    _, _, template = staged
    template.has_resource_properties(
        "Custom::HubModelStaging",
        {"ModelId": MODEL, "Revision": REVISION, "KeyPrefix": PREFIX, "ProjectName": Match.any_value()},
    )


def test_the_job_reads_the_secret_itself_and_its_role_is_scoped(staged: Any) -> None:
    # THEN the build reads HF_TOKEN from Secrets Manager (only the name is in the template)
    _, _, template = staged
    project = _only(template, "AWS::CodeBuild::Project")["Properties"]
    variables = {v["Name"]: v for v in project["Environment"]["EnvironmentVariables"]}
    assert variables["HF_TOKEN"] == {"Name": "HF_TOKEN", "Type": "SECRETS_MANAGER", "Value": "acme/hf-token"}
    assert variables["REVISION"]["Value"] == REVISION
    assert project["TimeoutInMinutes"] == int(BUILD_TIMEOUT.to_minutes())
    assert "VpcConfig" not in project  # it needs huggingface.co on the internet
    # AND the job role may read that secret and write that prefix, nothing else of either kind
    statements = _statements(template, "Hub model staging job")
    secret = [s for s in statements if "secretsmanager:GetSecretValue" in json.dumps(s["Action"])]
    assert len(secret) == 1 and "acme/hf-token-??????" in json.dumps(secret[0]["Resource"])
    writes = [s for s in statements if "s3:PutObject" in json.dumps(s["Action"])]
    assert len(writes) == 1 and writes[0]["Resource"]["Fn::Join"][1][-1] == f"/{PREFIX}*"
    # AND the execution role reads only the staged prefix
    execution = _statements(template, "What the endpoint's container")
    reads = [s for s in execution if s["Action"] == "s3:GetObject"]
    assert [r["Resource"]["Fn::Join"][1][-1] for r in reads] == [f"/{PREFIX}*"]


def test_the_provider_polls_on_the_planned_interval_within_the_planned_timeout() -> None:
    # The waiter polls every 30 s for at most an hour (the provider framework's maximum), above build + queue.
    assert QUERY_INTERVAL.to_seconds() == 30
    assert TOTAL_TIMEOUT.to_minutes() == 60
    assert BUILD_TIMEOUT.to_minutes() + 5 < TOTAL_TIMEOUT.to_minutes()


def test_an_isecret_goes_through_the_same_staging_path_and_its_key_may_decrypt() -> None:
    # GIVEN the secret as a construct with a customer managed key, passed as the endpoint's hf_token
    stack = Stack(new_app(), "Hosting")
    key = kms.Key.from_key_arn(
        stack, "Key", "arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab"
    )
    secret = secretsmanager.Secret.from_secret_attributes(
        stack, "Token", secret_complete_arn=SECRET_ARN, encryption_key=key
    )
    RealtimeEndpoint(stack, "Chat", instance_type="ml.g6e.xlarge", model=_model(), hf_token=secret)
    template = Template.from_stack(stack)
    # THEN the job reads that secret by its ARN and may decrypt with its key through secrets manager only
    project = _only(template, "AWS::CodeBuild::Project")["Properties"]
    token = next(v for v in project["Environment"]["EnvironmentVariables"] if v["Name"] == "HF_TOKEN")
    assert token["Value"] == SECRET_ARN
    statements = _statements(template, "Hub model staging job")
    decrypt = [s for s in statements if s["Action"] == "kms:Decrypt" and "Condition" in s]
    assert decrypt[0]["Resource"] == key.key_arn
    assert "kms:ViaService" in decrypt[0]["Condition"]["StringEquals"]
    # AND the Model has no token
    model = _only(template, "AWS::SageMaker::Model")["Properties"]
    assert "resolve:secretsmanager" not in json.dumps(model)


def test_opt_in_puts_the_reference_in_the_environment_and_stages_nothing() -> None:
    # GIVEN the explicit in_environment opt-in
    _, endpoint, template = _endpoint(
        model=ModelSpec(id=MODEL, parameters_billion=8), hf_token=HfTokenSecret("acme/hf-token", in_environment=True)
    )
    # THEN the Model's environment has the dynamic reference, nothing is staged, and the plan warns
    model = _only(template, "AWS::SageMaker::Model")["Properties"]
    assert model["PrimaryContainer"]["Environment"]["HF_TOKEN"] == "{{resolve:secretsmanager:acme/hf-token}}"
    assert not template.find_resources("Custom::HubModelStaging")
    assert endpoint.weights_staging is None
    assert "DescribeModel" in endpoint.plan.warnings[0]


def test_fails_a_staged_model_without_a_pinned_commit() -> None:
    with pytest.raises(InferenceConfigError, match=r"model\.revision: is required when model\.hf_token stages"):
        _endpoint(model=ModelSpec(id=MODEL, parameters_billion=8), hf_token=HfTokenSecret("acme/hf-token"))


def test_the_stack_size_estimate_covers_the_staging_resources(staged: Any) -> None:
    # GIVEN one staged endpoint alone in its stack
    _, _, template = staged
    resources = template.to_json()["Resources"].values()
    shared = sum(r["Type"] in ("AWS::S3::Bucket", "AWS::S3::BucketPolicy") for r in resources)
    actual = len(resources) - shared
    # THEN the planned estimate of a staged endpoint is not below it, and one without staging would be
    assert actual <= estimated_resources(EndpointFootprint(EndpointKind.REALTIME, staged=True))
    assert actual > estimated_resources(EndpointFootprint(EndpointKind.REALTIME))


@pytest.mark.parametrize(
    ("secret_id", "policy_resource"), [("acme/hf-token", "acme/hf-token-??????"), (SECRET_ARN, SECRET_ARN)]
)
def test_a_secret_name_or_arn_string_goes_through_the_same_staging_path(secret_id: str, policy_resource: str) -> None:
    # GIVEN the token secret's name or arn as a plain string on the endpoint (no HfTokenSecret, no ISecret)
    _, _, template = _endpoint(model=_model(), hf_token=secret_id)
    # THEN the job reads that secret by the string given, and only the job's role may read it
    project = _only(template, "AWS::CodeBuild::Project")["Properties"]
    token = next(v for v in project["Environment"]["EnvironmentVariables"] if v["Name"] == "HF_TOKEN")
    assert token == {"Name": "HF_TOKEN", "Type": "SECRETS_MANAGER", "Value": secret_id}
    statements = _statements(template, "Hub model staging job")
    reads = [s for s in statements if "secretsmanager:GetSecretValue" in json.dumps(s["Action"])]
    assert len(reads) == 1 and policy_resource in json.dumps(reads[0]["Resource"])
    assert "secretsmanager" not in json.dumps(_statements(template, "What the endpoint's container"))
    # AND the Model holds neither the token nor a reference to it
    model = _only(template, "AWS::SageMaker::Model")["Properties"]
    assert "HF_TOKEN" not in model["PrimaryContainer"]["Environment"]
    assert "resolve:secretsmanager" not in json.dumps(model)


def test_fails_a_token_given_in_place_of_a_secret_name_without_echoing_it() -> None:
    # GIVEN the token text itself passed as hf_token
    token = "hf_" + "Ab1" * 12
    assert looks_like_token(token)
    # THEN it is refused before anything reaches a template, and the message does not repeat the token
    with pytest.raises(
        InferenceConfigError, match=r"model\.hf_token\.secret: looks like a hugging face token itself"
    ) as raised:
        _endpoint(model=_model(), hf_token=token)
    assert token not in str(raised.value)


def test_a_serverless_endpoint_takes_hf_token_and_the_container_gets_only_the_reference() -> None:
    # GIVEN a serverless custom container that downloads a private hub model, the token opted into the environment
    stack = Stack(new_app(), "Hosting")
    ServerlessEndpoint(
        stack,
        "Classifier",
        model=ModelSpec(id="acme/private-classifier"),
        serving="custom",
        image="111122223333.dkr.ecr.us-east-1.amazonaws.com/classifier:1",
        hf_token=HfTokenSecret("acme/hf-token", in_environment=True),
    )
    template = Template.from_stack(stack)
    # THEN the container's token variable is the secrets manager dynamic reference, never a value
    model = _only(template, "AWS::SageMaker::Model")["Properties"]
    assert model["PrimaryContainer"]["Environment"]["HF_TOKEN"] == "{{resolve:secretsmanager:acme/hf-token}}"
    assert not looks_like_token(json.dumps(template.to_json()))


def test_fails_a_gated_model_without_a_token_naming_the_config_key_and_the_python_keyword() -> None:
    # GIVEN a gated hub model with no token WHEN built from Python THEN the refusal says how to give it from both
    with pytest.raises(InferenceConfigError, match=r"model\.hf_token\.secret \(config\) or hf_token= \(python\)"):
        _endpoint(model=ModelSpec(id=MODEL, parameters_billion=8))
