"""Gated and private models (a token secret or weights in S3) and the validated ``environment`` passthrough."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from aws_cdk import App

from inference_constructs.config import parse_config
from inference_constructs.containers.environment import ENVIRONMENT_OWNERS, owned_keys
from inference_constructs.containers.model_access import TOKEN_KEYS, HfTokenSecret
from inference_constructs.errors import InferenceConfigError
from inference_constructs.plan import plan_platform
from inference_constructs.spec import Serving
from inference_constructs.stacks.platform import synthesize
from tests.gates.synth import cli_context

_TOKEN = re.compile(r"hf_[A-Za-z0-9]{30,}")


def _config(model: str, extra: str = "") -> str:
    return f"""
name: gated
endpoints:
  - name: chat
    model: {model}
    serving: lmi
    accelerator: gpu
    instance_type: ml.g6e.xlarge
{extra}"""


REVISION = "0e9e39f249a16976918f6564b8830bc894c89659"
STAGED_ROUTE = _config(
    "{id: meta-llama/Llama-3.1-8B-Instruct, revision: " + REVISION + ", parameters_billion: 8, "
    "hf_token: {secret: acme/hf-token}}"
)
SECRET_ROUTE = _config(
    "{id: meta-llama/Llama-3.1-8B-Instruct, parameters_billion: 8, "
    "hf_token: {secret: acme/hf-token, in_environment: true}}"
)
S3_ROUTE = _config(
    "{source: s3, id: meta-llama/Llama-3.1-8B-Instruct, s3_uri: 's3://acme-models/llama-3.1-8b/', "
    "parameters_billion: 8}",
    "    network_isolation: true\n",
)


def _plan(text: str) -> dict[str, Any]:
    return plan_platform(parse_config(text)).to_json()


def _env(text: str) -> dict[str, str]:
    return dict(_plan(text)["endpoints"][0]["container"]["environment"])


def test_fails_gated_model_without_a_route() -> None:
    # GIVEN a gated Llama model downloaded from the hub with no token
    text = _config("{id: meta-llama/Llama-3.1-8B-Instruct, parameters_billion: 8}")
    # WHEN planned THEN it is refused at the model id, naming both routes
    with pytest.raises(
        InferenceConfigError,
        match=r"endpoints\[0\]\.model\.id: meta-llama/Llama-3\.1-8B-Instruct is gated on the hugging face hub "
        r".*model\.hf_token\.secret.*model\.source: s3",
    ):
        _plan(text)


def test_secret_route_opt_in_sets_the_token_variable_to_a_dynamic_reference_and_warns() -> None:
    # GIVEN the gated model with a token secret and the explicit in_environment opt-in WHEN planned
    plan = _plan(SECRET_ROUTE)
    env = plan["endpoints"][0]["container"]["environment"]
    # THEN the container reads HF_TOKEN, which is the dynamic reference CloudFormation resolves at deploy time
    assert env["HF_TOKEN"] == "{{resolve:secretsmanager:acme/hf-token}}"
    assert env["HF_MODEL_ID"] == "meta-llama/Llama-3.1-8B-Instruct"
    # AND the plan shows the route and warns that the token is plaintext on the model
    assert plan["endpoints"][0]["model_access"]["route"] == "environment"
    assert plan["endpoints"][0]["model_access"]["staged_to"] is None
    warning = next(w for w in plan["warnings"] if "in_environment" in w)
    assert warning.startswith("endpoints[0].model.hf_token.in_environment (chat) is true")
    assert "sagemaker:DescribeModel reads the token in plain text" in warning


def test_token_secret_stages_the_weights_by_default_with_network_isolation() -> None:
    # GIVEN the gated model with a token secret and a pinned commit, and no opt-in WHEN planned
    plan = _plan(STAGED_ROUTE)
    entry = plan["endpoints"][0]
    env = entry["container"]["environment"]
    # THEN no token variable is in the container: it loads /opt/ml/model, copied from the staged prefix
    assert not TOKEN_KEYS & set(env)
    assert env["HF_MODEL_ID"] == "/opt/ml/model"
    prefix = f"hub-models/meta-llama/Llama-3.1-8B-Instruct/{REVISION}/"
    assert entry["hosting"]["model_data"] == {"kind": "prefix", "uri": None, "staged_key_prefix": prefix}
    assert entry["model_access"]["route"] == "staged"
    assert entry["model_access"]["staged_to"]["key_prefix"] == prefix
    assert entry["model_access"]["secret"] == "acme/hf-token"
    # AND network isolation is on (nothing downloads from the hub at start), and nothing is warned about
    assert entry["network_isolation"]["enabled"] is True
    assert not [w for w in plan["warnings"] if "hf_token" in w]


def test_a_new_revision_stages_beside_the_old_one() -> None:
    # GIVEN the same model at another commit WHEN planned THEN its prefix differs only in the revision
    other = "5206a32e0bd3067aef1ce90f5528ade7d866253f"
    old = _plan(STAGED_ROUTE)["endpoints"][0]["model_access"]["staged_to"]["key_prefix"]
    new = _plan(STAGED_ROUTE.replace(REVISION, other))["endpoints"][0]["model_access"]["staged_to"]["key_prefix"]
    assert new == old.replace(REVISION, other)


@pytest.mark.parametrize(
    ("model", "extra", "match"),
    [
        (
            "{id: meta-llama/Llama-3.1-8B-Instruct, parameters_billion: 8, hf_token: {secret: acme/hf}}",
            "",
            r"endpoints\[0\]\.model\.revision: is required when model\.hf_token stages the weights into s3.*"
            r"40 hex characters.*model\.hf_token\.in_environment: true",
        ),
        (
            "{id: meta-llama/Llama-3.1-8B-Instruct, revision: main, parameters_billion: 8, "
            "hf_token: {secret: acme/hf}}",
            "",
            r"endpoints\[0\]\.model\.revision: 'main' is not a commit id: a branch or tag moves",
        ),
        (
            "{id: org/m, revision: " + REVISION + ", parameters_billion: 8, "
            "hf_token: {secret: acme/hf, in_environment: true}}",
            "",
            r"endpoints\[0\]\.model\.revision: is only used when model\.hf_token stages the weights into s3",
        ),
        (
            "{id: org/m, revision: " + REVISION + ", parameters_billion: 8}",
            "",
            r"endpoints\[0\]\.model\.revision: is only used when model\.hf_token stages a gated or private model",
        ),
        (
            "{id: org/m, revision: " + REVISION + ", parameters_billion: 8, "
            "hf_token: {secret: acme/hf, kms_key_arn: 'arn:aws:kms:us-east-1:111122223333:alias/x'}}",
            "",
            r"endpoints\[0\]\.model\.hf_token\.kms_key_arn",
        ),
    ],
)
def test_fails_staged_route_without_a_pinned_commit(model: str, extra: str, match: str) -> None:
    # GIVEN a staged route whose revision is missing, moves, or is given where nothing stages
    # WHEN planned THEN one error names the key path and the fix
    with pytest.raises(InferenceConfigError, match=match):
        _plan(_config(model, extra))


def test_s3_route_needs_no_token_and_works_with_network_isolation() -> None:
    # GIVEN the gated model's weights staged in S3, with network isolation WHEN planned
    env = _env(S3_ROUTE)
    # THEN the container loads from /opt/ml/model and no token variable exists
    assert env["HF_MODEL_ID"] == "/opt/ml/model"
    assert not TOKEN_KEYS & set(env)


@pytest.mark.parametrize("text", [STAGED_ROUTE, SECRET_ROUTE, S3_ROUTE], ids=["staged", "secret", "s3"])
def test_gated_model_synthesizes_by_each_route_without_token_text(text: str, tmp_path: Path) -> None:
    # GIVEN a config with a gated model on one route
    config = tmp_path / "gated.yaml"
    config.write_text(text)
    # WHEN the whole platform is synthesized (nag packs as validation plugins)
    synthesize(App(outdir=str(tmp_path / "out"), context=cli_context()), config)
    # THEN no template nor the plan holds token text, and the secret route's Model carries the reference
    files = {p.name: p.read_text() for p in (tmp_path / "out").glob("*.json")}
    assert not [name for name, body in files.items() if _TOKEN.search(body)]
    hosting = json.loads(files["gated-hosting-1.template.json"])
    models = [r for r in hosting["Resources"].values() if r["Type"] == "AWS::SageMaker::Model"]
    env = models[0]["Properties"]["PrimaryContainer"]["Environment"]
    assert ("HF_TOKEN" in env) is (text is SECRET_ROUTE)
    if text is SECRET_ROUTE:
        assert env["HF_TOKEN"] == "{{resolve:secretsmanager:acme/hf-token}}"


@pytest.mark.parametrize(
    ("secret", "expected"),
    [
        (HfTokenSecret("acme/hf-token"), "{{resolve:secretsmanager:acme/hf-token}}"),
        (HfTokenSecret("acme/keys", json_key="hf"), "{{resolve:secretsmanager:acme/keys:SecretString:hf}}"),
        (
            HfTokenSecret("acme/hf-token", version_id="a" * 36),
            "{{resolve:secretsmanager:acme/hf-token:SecretString:::" + "a" * 36 + "}}",
        ),
        (
            HfTokenSecret("arn:aws:secretsmanager:us-east-1:111122223333:secret:hf-AbCdEf", json_key="t"),
            "{{resolve:secretsmanager:arn:aws:secretsmanager:us-east-1:111122223333:secret:hf-AbCdEf:SecretString:t}}",
        ),
    ],
)
def test_dynamic_reference_forms(secret: HfTokenSecret, expected: str) -> None:
    # GIVEN a secret, with or without a JSON key and a version id WHEN rendered THEN the CloudFormation form is exact
    assert secret.dynamic_reference == expected


@pytest.mark.parametrize(
    ("model", "extra", "match"),
    [
        (
            "{source: s3, s3_uri: 's3://acme-models/llama/', parameters_billion: 8, hf_token: {secret: acme/hf}}",
            "",
            r"endpoints\[0\]\.model\.hf_token: is only used when the container downloads from the hugging face hub",
        ),
        (
            "{id: org/m, parameters_billion: 8, hf_token: {secret: 'bad secret!'}}",
            "",
            r"endpoints\[0\]\.model\.hf_token\.secret: 'bad secret!' is not a secret name or arn",
        ),
        (
            "{id: org/m, parameters_billion: 8}",
            "    environment: {OPTION_DTYPE: fp16}\n",
            r"endpoints\[0\]\.environment\.OPTION_DTYPE: is written by the library for serving lmi, from model\.dtype",
        ),
        (
            "{id: org/m, parameters_billion: 8}",
            "    environment: {HF_TOKEN: abc}\n",
            r"endpoints\[0\]\.environment\.HF_TOKEN: is written by the library .* from model\.hf_token",
        ),
        (
            "{id: org/m, parameters_billion: 8}",
            "    environment: {TENSOR_PARALLEL_DEGREE: 2}\n",
            r"environment\.TENSOR_PARALLEL_DEGREE: is written by the library .*the sizing decides the tensor parallel",
        ),
        (
            "{id: org/m, parameters_billion: 8}",
            "    environment: {MY_TOKEN: hf_abcdefghijklmnopqrstuvwxyzABCDEFGH}\n",
            r"environment\.MY_TOKEN: holds what looks like a hugging face token in plain text",
        ),
        (
            "{id: org/m, parameters_billion: 8}",
            "    environment: {1BAD: x}\n",
            r"environment\.1BAD: '1BAD' is not an environment variable name; use \[A-Za-z_\]",
        ),
        (
            "{id: org/m, parameters_billion: 8}",
            f"    environment: {{LONG: {'x' * 1025}}}\n",
            r"environment\.LONG: key or value is longer than 1024 bytes",
        ),
    ],
)
def test_fails_bad_token_or_environment(model: str, extra: str, match: str) -> None:
    # GIVEN a malformed token route or environment entry WHEN planned THEN one error names the key path and the fix
    with pytest.raises(InferenceConfigError, match=match):
        _plan(_config(model, extra))


def test_fails_more_than_100_environment_entries() -> None:
    # GIVEN 101 variables WHEN parsed THEN the config is refused at environment (SageMaker's 100-entry limit)
    entries = ", ".join(f"K{i}: v" for i in range(101))
    with pytest.raises(InferenceConfigError, match=r"endpoints\[0\]\.environment"):
        _plan(_config("{id: org/m, parameters_billion: 8}", f"    environment: {{{entries}}}\n"))


def test_environment_passthrough_is_merged_and_shown_in_the_plan() -> None:
    # GIVEN two container options the library does not own (numbers and booleans allowed)
    text = _config(
        "{id: org/m, parameters_billion: 8}",
        "    environment: {OPTION_ENFORCE_EAGER: true, SERVING_JOB_QUEUE_SIZE: 2000}\n",
    )
    # WHEN planned THEN both are in the container environment as strings, beside the library's own keys
    env = _env(text)
    assert env["OPTION_ENFORCE_EAGER"] == "true"
    assert env["SERVING_JOB_QUEUE_SIZE"] == "2000"
    assert env["OPTION_ROLLING_BATCH"] == "vllm"


def test_framework_script_name_may_be_overridden() -> None:
    # GIVEN a scikit-learn model whose handler is not inference.py
    text = """
name: tabular
endpoints:
  - name: churn
    type: serverless
    serving: sklearn
    model: {source: s3, s3_uri: "s3://acme-models/churn.tar.gz"}
    environment: {SAGEMAKER_PROGRAM: serve.py}
"""
    # WHEN planned THEN the script name is the user's (SAGEMAKER_PROGRAM is a default, not a decision)
    assert _env(text)["SAGEMAKER_PROGRAM"] == "serve.py"


@pytest.mark.parametrize("serving", list(Serving))
def test_every_owned_key_names_the_config_key_that_sets_it(serving: Serving) -> None:
    # GIVEN the keys the library writes for a serving stack WHEN a user sets one THEN the refusal names its owner
    assert owned_keys(serving) <= set(ENVIRONMENT_OWNERS)
