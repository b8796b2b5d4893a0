"""Template assertions for every endpoint kind on every host family."""

from __future__ import annotations

from typing import Any

import pytest
from aws_cdk import CfnElement, Stack
from aws_cdk import aws_iam as iam
from aws_cdk.assertions import Match, Template
from constructs import IConstruct

from inference_constructs.hosting import InferenceEndpoint
from tests.unit.hosting.scenarios import KEY_ARN, build, new_app


@pytest.fixture(scope="module")
def built() -> tuple[Stack, dict[str, InferenceEndpoint], Template]:
    app = new_app()
    stack = Stack(app, "Hosting")
    endpoints = build(stack)
    role = iam.Role(stack, "Caller", assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"))
    endpoints["gpu_llm"].grant_invoke(role)
    endpoints["async"].grant_invoke(role)
    return stack, endpoints, Template.from_stack(stack)


def _resource(stack: Stack, template: Template, endpoint: InferenceEndpoint, child: str) -> dict[str, Any]:
    found = endpoint.node.find_child(child)
    element = found.node.default_child or found
    assert isinstance(element, CfnElement)
    logical_id = stack.get_logical_id(element)
    return template.to_json()["Resources"][logical_id]  # type: ignore[no-any-return]


def _cfn(construct: IConstruct) -> CfnElement:
    element = construct.node.default_child
    assert isinstance(element, CfnElement)
    return element


def _by_type(stack: Stack, template: Template, endpoint: InferenceEndpoint, type_: str) -> dict[str, Any]:
    prefix = stack.get_logical_id(endpoint.resource)[:-8]
    found = [r for k, r in template.to_json()["Resources"].items() if r["Type"] == type_ and k.startswith(prefix)]
    return found[0]  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("name", "instance_type", "image_column", "tag"),
    [
        ("gpu_llm", "ml.g6e.xlarge", "LmiGpu", "/djl-inference:0.38.0-lmi29.0.0-cu130"),
        ("inf2_llm", "ml.inf2.24xlarge", "LmiNeuron", "/djl-inference:0.29.0-neuronx-sdk2.19.1"),
        (
            "trn_llm",
            "ml.trn1.32xlarge",
            "TgiNeuron",
            "/huggingface-pytorch-tgi-inference:2.7.0-optimum3.3.6-inf2-py310-ubuntu22.04",
        ),
        ("cpu_realtime", "ml.m5.xlarge", "PytorchCpu", "/pytorch-inference:2.6.0-cpu-py312"),
        ("cpu_mme", "ml.c5.large", "XgboostCpu", "/sagemaker-xgboost:3.0-5"),
        ("gpu_mme", "ml.g4dn.xlarge", "TritonGpu", "/sagemaker-tritonserver:25.09-py3"),
        ("serverless", None, "SklearnCpu", "/sagemaker-scikit-learn:1.4-2-py312-cpu-py3"),
    ],
)
def test_image_comes_from_the_region_mapping(
    built: tuple[Stack, dict[str, InferenceEndpoint], Template],
    name: str,
    instance_type: str | None,
    image_column: str,
    tag: str,
) -> None:
    # GIVEN the scenario endpoint WHEN synthesized
    stack, endpoints, template = built
    endpoint = endpoints[name]
    model = _by_type(stack, template, endpoint, "AWS::SageMaker::Model")
    # THEN the image is account (FindInMap) + region + domain (FindInMap) + the pinned tag, and the host is the decision
    parts = model["Properties"]["PrimaryContainer"]["Image"]["Fn::Join"][1]
    assert parts[0] == {"Fn::FindInMap": ["InferenceImageRegistry", {"Ref": "AWS::Region"}, image_column]}
    assert parts[-1] == tag
    assert endpoint.instance_type == instance_type


def test_mapping_covers_every_region_of_each_image_with_its_domain(
    built: tuple[Stack, dict[str, InferenceEndpoint], Template],
) -> None:
    # GIVEN the stack's mapping WHEN read THEN china regions use amazonaws.com.cn and every image's regions are present
    _, endpoints, template = built
    mapping = template.to_json()["Mappings"]["InferenceImageRegistry"]
    assert mapping["cn-north-1"]["Domain"] == "amazonaws.com.cn"
    image = endpoints["gpu_llm"].plan.image
    assert image is not None
    assert {r for r, cols in mapping.items() if "LmiGpu" in cols} == set(image.accounts)


@pytest.mark.parametrize(
    ("name", "env"),
    [
        (
            "gpu_llm",
            {
                "OPTION_TENSOR_PARALLEL_DEGREE": "1",
                "OPTION_MAX_MODEL_LEN": "8192",
                "OPTION_MAX_ROLLING_BATCH_SIZE": "16",
            },
        ),
        (
            "inf2_llm",
            {
                "OPTION_TENSOR_PARALLEL_DEGREE": "4",
                "OPTION_N_POSITIONS": "8192",
                "OPTION_ENTRYPOINT": "djl_python.transformers_neuronx",
            },
        ),
        # trn1 offers tensor parallel degrees 1, 2, 8, 16, 32 (no 4): 8 cores after 2 leave less than the margin
        ("trn_llm", {"HF_NUM_CORES": "8", "MAX_TOTAL_TOKENS": "8192", "MAX_BATCH_SIZE": "16"}),
        ("async", {"HF_MODEL_ID": "/opt/ml/model", "OPTION_ROLLING_BATCH": "vllm"}),
        ("cpu_realtime", {"SAGEMAKER_PROGRAM": "inference.py"}),
    ],
)
def test_environment_follows_the_decisions(
    built: tuple[Stack, dict[str, InferenceEndpoint], Template], name: str, env: dict[str, str]
) -> None:
    # GIVEN the endpoint WHEN synthesized THEN its container environment carries the sizing decisions
    stack, endpoints, template = built
    model = _by_type(stack, template, endpoints[name], "AWS::SageMaker::Model")
    assert model["Properties"]["PrimaryContainer"]["Environment"].items() >= env.items()


def test_uncompressed_llm_weights_use_model_data_source(
    built: tuple[Stack, dict[str, InferenceEndpoint], Template],
) -> None:
    # GIVEN llm weights as an s3 prefix WHEN synthesized THEN ModelDataSource copies the prefix uncompressed
    stack, endpoints, template = built
    container = _by_type(stack, template, endpoints["async"], "AWS::SageMaker::Model")["Properties"]["PrimaryContainer"]
    assert container["ModelDataSource"] == {
        "S3DataSource": {"CompressionType": "None", "S3DataType": "S3Prefix", "S3Uri": "s3://my-models/llama/"}
    }


@pytest.mark.parametrize(("name", "cache"), [("cpu_mme", "Enabled"), ("gpu_mme", "Enabled")])
def test_multi_model_container_mode(
    built: tuple[Stack, dict[str, InferenceEndpoint], Template], name: str, cache: str
) -> None:
    # GIVEN a multi-model endpoint WHEN synthesized THEN MultiModel mode on the prefix, with the cache setting
    stack, endpoints, template = built
    container = _by_type(stack, template, endpoints[name], "AWS::SageMaker::Model")["Properties"]["PrimaryContainer"]
    assert container["Mode"] == "MultiModel"
    assert container["ModelDataUrl"].endswith("/")
    assert container["MultiModelConfig"] == {"ModelCacheSetting": cache}


@pytest.mark.parametrize(
    ("name", "has_key"),
    [
        ("gpu_llm", False),
        ("inf2_llm", True),
        ("async", False),
        ("cpu_realtime", True),
        ("serverless", False),
        ("cpu_mme", False),
    ],
)
def test_kms_key_presence_follows_the_host(
    built: tuple[Stack, dict[str, InferenceEndpoint], Template], name: str, has_key: bool
) -> None:
    # GIVEN a key on nvme (g6e, g6) and ebs (inf2, m5) hosts, none on others WHEN synthesized
    stack, endpoints, template = built
    config = _by_type(stack, template, endpoints[name], "AWS::SageMaker::EndpointConfig")["Properties"]
    # THEN KmsKeyId is set exactly where the host allows it and a key was given
    assert ("KmsKeyId" in config) == has_key
    if has_key:
        assert config["KmsKeyId"] == KEY_ARN


def test_llm_variant_routes_least_outstanding_requests_with_grown_timeouts(
    built: tuple[Stack, dict[str, InferenceEndpoint], Template],
) -> None:
    # GIVEN the gpu llm WHEN synthesized THEN routing and timeouts are set on the variant
    stack, endpoints, template = built
    variant = _by_type(stack, template, endpoints["gpu_llm"], "AWS::SageMaker::EndpointConfig")["Properties"][
        "ProductionVariants"
    ][0]
    assert variant["RoutingConfig"] == {"RoutingStrategy": "LEAST_OUTSTANDING_REQUESTS"}
    assert variant["ContainerStartupHealthCheckTimeoutInSeconds"] == 1048
    assert variant["ModelDataDownloadTimeoutInSeconds"] == 899
    assert "VolumeSizeInGB" not in variant


def test_serverless_variant_has_no_instance_settings(
    built: tuple[Stack, dict[str, InferenceEndpoint], Template],
) -> None:
    # GIVEN the serverless endpoint WHEN synthesized THEN only ServerlessConfig sizes it
    stack, endpoints, template = built
    variant = _by_type(stack, template, endpoints["serverless"], "AWS::SageMaker::EndpointConfig")["Properties"][
        "ProductionVariants"
    ][0]
    assert variant["ServerlessConfig"] == {"MaxConcurrency": 20, "MemorySizeInMB": 2048}
    assert not {"InstanceType", "InitialInstanceCount", "RoutingConfig"} & set(variant)


def test_async_config_has_output_topics_and_concurrency(
    built: tuple[Stack, dict[str, InferenceEndpoint], Template],
) -> None:
    # GIVEN the async endpoint WHEN synthesized
    stack, endpoints, template = built
    config = _by_type(stack, template, endpoints["async"], "AWS::SageMaker::EndpointConfig")["Properties"]
    # THEN results go to the shared data bucket, both topics notify, and concurrency follows the sequences
    output = config["AsyncInferenceConfig"]["OutputConfig"]
    assert set(output["NotificationConfig"]) == {"SuccessTopic", "ErrorTopic"}
    assert output["KmsKeyId"] == KEY_ARN
    assert config["AsyncInferenceConfig"]["ClientConfig"] == {"MaxConcurrentInvocationsPerInstance": 8}
    template.has_resource_properties("AWS::SNS::Topic", {"KmsMasterKeyId": KEY_ARN})
    template.has_resource_properties(
        "AWS::SNS::TopicPolicy",
        {
            "PolicyDocument": {
                "Statement": [
                    Match.object_like({"Effect": "Deny", "Condition": {"Bool": {"aws:SecureTransport": "false"}}})
                ]
            }
        },
    )


def test_buckets_are_encrypted_ssl_only_private_and_retained(
    built: tuple[Stack, dict[str, InferenceEndpoint], Template],
) -> None:
    # GIVEN the stack's shared buckets WHEN synthesized THEN both block public access, are versioned and retained
    _, _, template = built
    buckets = template.find_resources("AWS::S3::Bucket")
    assert len(buckets) == 2
    for bucket in buckets.values():
        assert bucket["DeletionPolicy"] == "Retain"
        assert bucket["Properties"]["VersioningConfiguration"] == {"Status": "Enabled"}
        assert bucket["Properties"]["PublicAccessBlockConfiguration"]["RestrictPublicBuckets"] is True
    algorithms = sorted(
        b["Properties"]["BucketEncryption"]["ServerSideEncryptionConfiguration"][0]["ServerSideEncryptionByDefault"][
            "SSEAlgorithm"
        ]
        for b in buckets.values()
    )
    assert algorithms == ["AES256", "aws:kms"]
    template.resource_count_is("AWS::S3::BucketPolicy", 2)


def test_data_capture_samples_the_given_percent(built: tuple[Stack, dict[str, InferenceEndpoint], Template]) -> None:
    # GIVEN data capture at 20 percent WHEN synthesized THEN inputs and outputs are captured at that rate
    stack, endpoints, template = built
    capture = _by_type(stack, template, endpoints["cpu_mme"], "AWS::SageMaker::EndpointConfig")["Properties"][
        "DataCaptureConfig"
    ]
    assert capture["InitialSamplingPercentage"] == 20
    assert capture["CaptureOptions"] == [{"CaptureMode": "Input"}, {"CaptureMode": "Output"}]


def _statements(stack: Stack, template: Template, endpoint: InferenceEndpoint) -> list[dict[str, Any]]:
    policy = _by_type(stack, template, endpoint, "AWS::IAM::ManagedPolicy")
    return policy["Properties"]["PolicyDocument"]["Statement"]  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    "name", ["gpu_llm", "inf2_llm", "async", "serverless", "cpu_mme", "trn_llm", "cpu_realtime", "gpu_mme"]
)
def test_role_is_least_privilege(built: tuple[Stack, dict[str, InferenceEndpoint], Template], name: str) -> None:
    # GIVEN any endpoint WHEN synthesized
    stack, endpoints, template = built
    statements = _statements(stack, template, endpoints[name])
    actions = [a for s in statements for a in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])]
    # THEN no action is a wildcard, no managed policy is attached, and image pull names one repository
    assert not [a for a in actions if "*" in a]
    role = _by_type(stack, template, endpoints[name], "AWS::IAM::Role")
    assert "ManagedPolicyArns" not in role["Properties"] and "Policies" not in role["Properties"]
    pull = next(s for s in statements if "ecr:BatchGetImage" in s["Action"])
    assert pull["Resource"]["Fn::Join"][1][-1].startswith(":repository/")
    # AND only the calls without resource-level permissions use Resource "*"
    star = {
        a
        for s in statements
        if s["Resource"] == "*"
        for a in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])
    }
    assert star <= {"ecr:GetAuthorizationToken", "cloudwatch:PutMetricData"} | {a for a in star if a.startswith("ec2:")}


def test_model_prefix_read_is_scoped_to_the_prefix(built: tuple[Stack, dict[str, InferenceEndpoint], Template]) -> None:
    # GIVEN the async endpoint reading s3://my-models/llama/ WHEN synthesized THEN read/list are scoped to it
    stack, endpoints, template = built
    statements = _statements(stack, template, endpoints["async"])
    reads = [r for s in statements if s["Action"] == "s3:GetObject" for r in s["Resource"]]
    assert {"Fn::Join": ["", ["arn:", {"Ref": "AWS::Partition"}, ":s3:::my-models/llama/*"]]} in reads
    listing = next(s for s in statements if s["Action"] == "s3:ListBucket")
    assert listing["Condition"] == {"StringLike": {"s3:prefix": ["llama/*"]}}


def test_kms_decrypt_only_on_the_given_key(built: tuple[Stack, dict[str, InferenceEndpoint], Template]) -> None:
    # GIVEN endpoints with and without a key WHEN synthesized THEN kms actions name only that key
    stack, endpoints, template = built
    kms = [s for s in _statements(stack, template, endpoints["inf2_llm"]) if str(s["Action"]).startswith("kms:")]
    assert kms == [{"Action": "kms:Decrypt", "Effect": "Allow", "Resource": KEY_ARN}]
    assert not [s for s in _statements(stack, template, endpoints["cpu_mme"]) if str(s["Action"]).startswith("kms:")]


@pytest.mark.parametrize(
    ("name", "routing", "termination"),
    [
        ("gpu_llm", {"Type": "ALL_AT_ONCE", "WaitIntervalInSeconds": 300}, 600),
        (
            "inf2_llm",
            {"Type": "CANARY", "CanarySize": {"Type": "CAPACITY_PERCENT", "Value": 10}, "WaitIntervalInSeconds": 300},
            600,
        ),
        (
            "async",
            {
                "Type": "LINEAR",
                "LinearStepSize": {"Type": "CAPACITY_PERCENT", "Value": 25},
                "WaitIntervalInSeconds": 300,
            },
            600,
        ),
        ("serverless", {"Type": "ALL_AT_ONCE", "WaitIntervalInSeconds": 300}, 0),
    ],
)
def test_blue_green_with_alarm_rollback(
    built: tuple[Stack, dict[str, InferenceEndpoint], Template], name: str, routing: dict[str, Any], termination: int
) -> None:
    # GIVEN an endpoint and its strategy WHEN synthesized
    stack, endpoints, template = built
    endpoint = endpoints[name]
    config = template.to_json()["Resources"][stack.get_logical_id(endpoint.resource)]["Properties"]["DeploymentConfig"]
    # THEN traffic shifts blue/green as asked and rolls back on the endpoint's two alarms (by Ref of unnamed alarms)
    policy = config["BlueGreenUpdatePolicy"]
    assert policy["TrafficRoutingConfiguration"] == routing
    assert policy["TerminationWaitInSeconds"] == termination
    alarms = config["AutoRollbackConfiguration"]["Alarms"]
    assert [a["AlarmName"]["Ref"] for a in alarms] == [stack.get_logical_id(a) for a in endpoint.rollback_alarms]


def test_rollback_can_be_turned_off(built: tuple[Stack, dict[str, InferenceEndpoint], Template]) -> None:
    # GIVEN rollback_on_alarms false WHEN synthesized THEN no alarms exist and the policy has no rollback
    stack, endpoints, template = built
    endpoint = endpoints["cpu_realtime"]
    config = template.to_json()["Resources"][stack.get_logical_id(endpoint.resource)]["Properties"]["DeploymentConfig"]
    assert endpoint.rollback_alarms == [] and "AutoRollbackConfiguration" not in config


def test_rollback_alarms_are_plain_metric_alarms(built: tuple[Stack, dict[str, InferenceEndpoint], Template]) -> None:
    # GIVEN the gpu llm's alarms WHEN synthesized THEN p99 ModelLatency is in microseconds and 5XX is a rate, no SEARCH
    stack, endpoints, template = built
    resources = template.to_json()["Resources"]
    errors, latency = (resources[stack.get_logical_id(a)]["Properties"] for a in endpoints["gpu_llm"].rollback_alarms)
    assert (errors["MetricName"], errors["Statistic"], errors["Threshold"]) == ("Invocation5XXErrors", "Average", 0.05)
    assert (latency["MetricName"], latency["ExtendedStatistic"], latency["Threshold"], latency["Unit"]) == (
        "ModelLatency",
        "p99",
        60_000_000,
        "Microseconds",
    )
    assert "Metrics" not in errors and "Metrics" not in latency


def test_model_and_config_have_no_physical_names(built: tuple[Stack, dict[str, InferenceEndpoint], Template]) -> None:
    # GIVEN every endpoint WHEN synthesized THEN Model and EndpointConfig are unnamed (CFN replaces them on update)
    _, _, template = built
    for r in template.find_resources("AWS::SageMaker::Model").values():
        assert "ModelName" not in r["Properties"]
    for r in template.find_resources("AWS::SageMaker::EndpointConfig").values():
        assert "EndpointConfigName" not in r["Properties"]


@pytest.mark.parametrize(
    ("name", "actions"),
    [
        ("gpu_llm", ["sagemaker:InvokeEndpoint", "sagemaker:InvokeEndpointWithResponseStream"]),
        ("async", "sagemaker:InvokeEndpointAsync"),
    ],
)
def test_grant_invoke_fits_the_kind(
    built: tuple[Stack, dict[str, InferenceEndpoint], Template], name: str, actions: Any
) -> None:
    # GIVEN grant_invoke to a lambda role WHEN synthesized THEN the role may call the kind's invoke action, through a
    # managed policy attached to it (an inline one fails NIST 800-53 / HIPAA IAMNoInlinePolicy)
    _, endpoints, template = built
    template.resource_count_is("AWS::IAM::Policy", 0)
    template.has_resource_properties(
        "AWS::IAM::ManagedPolicy",
        {"PolicyDocument": {"Statement": Match.array_with([Match.object_like({"Action": actions})])}},
    )
    assert endpoints[name].endpoint_arn


@pytest.mark.parametrize(
    ("method", "metric_name", "statistic", "unit", "dimensions"),
    [
        ("metric_model_latency", "ModelLatency", "p99", "MICROSECONDS", 2),
        ("metric_overhead_latency", "OverheadLatency", "Average", "MICROSECONDS", 2),
        ("metric_invocation_5xx_errors", "Invocation5XXErrors", "Average", None, 2),
        ("metric_invocations", "Invocations", "Sum", None, 2),
        ("metric_gpu_memory_utilization", "GPUMemoryUtilization", "Average", "PERCENT", 2),
        ("metric_approximate_backlog_size_per_instance", "ApproximateBacklogSizePerInstance", "Average", "COUNT", 1),
        ("metric_has_backlog_without_capacity", "HasBacklogWithoutCapacity", "Average", "COUNT", 1),
    ],
)
def test_metrics_have_real_units_and_dimensions(  # noqa: PLR0917
    built: tuple[Stack, dict[str, InferenceEndpoint], Template],
    method: str,
    metric_name: str,
    statistic: str,
    unit: str | None,
    dimensions: int,
) -> None:
    # GIVEN an endpoint WHEN a metric helper is called THEN name, default statistic, unit and dimensions are right
    _, endpoints, _ = built
    metric = getattr(endpoints["async"], method)()
    assert (metric.metric_name, metric.statistic) == (metric_name, statistic)
    assert (metric.unit.name if metric.unit else None) == unit
    assert len(metric.dimensions) == dimensions


def test_scaling_hook_attributes(built: tuple[Stack, dict[str, InferenceEndpoint], Template]) -> None:
    # GIVEN the gpu llm WHEN its scaling facts are read THEN the resource id, gpu count and capacity are exposed
    _, endpoints, _ = built
    endpoint = endpoints["gpu_llm"]
    assert endpoint.scalable_resource_id == f"endpoint/{endpoint.endpoint_name}/variant/AllTraffic"
    assert (endpoint.gpu_count, endpoint.kind.value, endpoint.capacity.min) == (1, "realtime", 1)


def test_network_isolation_defaults_from_where_the_weights_come_from() -> None:
    # GIVEN two endpoints built from Python without network_isolation: weights in S3, weights from the hub
    from aws_cdk import App

    from inference_constructs.hosting import RealtimeEndpoint
    from inference_constructs.spec import ModelSourceKind, ModelSpec, Serving

    stack = Stack(App(), "Isolation")
    s3 = RealtimeEndpoint(
        stack,
        "S3",
        model=ModelSpec(source=ModelSourceKind.S3, s3_uri="s3://models-bucket/churn/model.tar.gz"),
        serving=Serving.SKLEARN,
    )
    hub = RealtimeEndpoint(
        stack,
        "Hub",
        model=ModelSpec(id="Qwen/Qwen2.5-1.5B-Instruct", parameters_billion=1.5),
        serving=Serving.VLLM,
    )
    # WHEN synthesized THEN only the S3 model's container runs without network access, with the reason in the plan
    models = Template.from_stack(stack).find_resources("AWS::SageMaker::Model")
    isolated = sorted(lid for lid, m in models.items() if m["Properties"].get("EnableNetworkIsolation"))
    assert len(models) == 2
    assert len(isolated) == 1
    assert isolated[0].startswith("S3")
    assert s3.plan.network_isolation and s3.plan.network_isolation_reason.startswith("on: the model comes from S3")
    assert not hub.plan.network_isolation
    assert hub.plan.network_isolation_reason.startswith("off: the container downloads the model")
