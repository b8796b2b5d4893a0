"""Where every property the library writes on its SageMaker, scaling, alarm, alarm-topic, dashboard, cost and
Bedrock profile resources comes from.

One entry per ``(resource type, property path)``: ``Plan`` names the field of the plan document
(``inference-plan.json``: the endpoint's entry, the alarm's entry, or a platform section) whose value the
property must equal; ``Fixed`` is a value the translation
always writes (not a decision); ``Wiring`` is CDK plumbing (a ``Ref``, an ARN, a name derived from the
construct path, a tag) that the plan does not state. Property paths join nested keys with ``.``; a list is one
value. ``tests/gates/test_property_map.py`` walks every such resource of the default platform and every
example and fails on a property with no entry here, or whose value differs from its plan field.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from inference_constructs.cost import CAPACITY_TAG_KEYS
from inference_constructs.observability.alarm_resources import js_number

Entry = Mapping[str, Any]


@dataclass(frozen=True)
class Context:
    """What a property's plan field is looked up in: the whole plan document, the endpoint's plan entry (for an
    endpoint's resources) and, for a scaling policy or an alarm, the plan's policy or alarm it was built from;
    ``owner`` is the resource's construct path inside its stack."""

    plan: Entry
    endpoint: Entry = field(default_factory=dict)
    policy: Entry = field(default_factory=dict)
    alarm: Entry = field(default_factory=dict)
    owner: str = ""


@dataclass(frozen=True)
class Plan:
    """The property equals ``expected(context)``, read from the plan; ``field`` names it for messages.
    ``actual`` reduces the template value first (e.g. a list of dimension objects to their names)."""

    field: str
    expected: Callable[[Context], Any]
    actual: Callable[[Any], Any] = lambda value: value


@dataclass(frozen=True)
class Fixed:
    """A value the translation always writes."""

    value: Any
    reason: str


@dataclass(frozen=True)
class Wiring:
    """CDK plumbing the plan does not state."""

    reason: str


Source = Plan | Fixed | Wiring

MODEL = "AWS::SageMaker::Model"
STAGING = "Custom::HubModelStaging"
CONFIG = "AWS::SageMaker::EndpointConfig"
ENDPOINT = "AWS::SageMaker::Endpoint"
COMPONENT = "AWS::SageMaker::InferenceComponent"
TARGET = "AWS::ApplicationAutoScaling::ScalableTarget"
POLICY = "AWS::ApplicationAutoScaling::ScalingPolicy"
ALARM = "AWS::CloudWatch::Alarm"
TOPIC = "AWS::SNS::Topic"
SUBSCRIPTION = "AWS::SNS::Subscription"
DASHBOARD = "AWS::CloudWatch::Dashboard"
BUDGET = "AWS::Budgets::Budget"
BUDGET_ACTION = "AWS::Budgets::BudgetsAction"
MONITOR = "AWS::CE::AnomalyMonitor"
ANOMALY_SUBSCRIPTION = "AWS::CE::AnomalySubscription"
SAMPLING = "AWS::XRay::SamplingRule"
PROFILE = "AWS::Bedrock::ApplicationInferenceProfile"
GUARDRAIL = "AWS::Bedrock::Guardrail"
GUARDRAIL_VERSION = "AWS::Bedrock::GuardrailVersion"
ROUTER = "AWS::Bedrock::IntelligentPromptRouter"
LOGGING = "Custom::BedrockInvocationLogging"


def _tag_pairs(tags: list[dict[str, str]]) -> dict[str, str]:
    """A template's tag list without the capacity tags (those are per endpoint, from its plan entry)."""
    return {t["Key"]: t["Value"] for t in tags if t["Key"] not in CAPACITY_TAG_KEYS}


TAGS = Plan("tags (the capacity tags of an endpoint's resources aside)", lambda c: c.plan["tags"], _tag_pairs)


def _at(section: str) -> Callable[[str], Callable[[Context], Any]]:
    """``_at("hosting")("variant_name")`` reads ``hosting.variant_name`` of the endpoint's plan entry."""
    return lambda key: lambda c: c.endpoint[section][key]


_h, _c, _d, _ic, _sl, _s = (
    _at(section) for section in ("hosting", "container", "deployment", "inference_component", "serverless", "scaling")
)


def _hb(block: str, key: str) -> Callable[[Context], Any]:
    """``_hb("metrics_config", "enable_enhanced_metrics")`` reads that key of a hosting block present when set."""
    return lambda c: c.endpoint["hosting"][block][key]


def _pools(c: Context) -> list[tuple[str, int, bool]]:
    return [
        (p["instance_type"], p["priority"], p["model_override"])
        for p in c.endpoint["hosting"]["instance_pools"]["pools"]
    ]


def _pool_items(value: Any) -> list[tuple[str, int, bool]]:
    return [(p["InstanceType"], p["Priority"], "ModelNameOverride" in p) for p in value]


def _model_environment(c: Context) -> Any:
    """A pool's own model (``PoolModel<priority>``) carries that pool's environment; the variant's model the plan's."""
    match = re.fullmatch(r"PoolModel(\d+)", c.owner)
    if match is None:
        return c.endpoint["container"]["environment"]
    pools = c.endpoint["hosting"]["instance_pools"]["pools"]
    return next(p["environment"] for p in pools if p["priority"] == int(match[1]))


def _p(key: str) -> Callable[[Context], Any]:
    return lambda c: c.policy[key]


def _a(key: str) -> Callable[[Context], Any]:
    return lambda c: c.alarm[key]


def _at_plan(*keys: str) -> Callable[[Context], Any]:
    """``_at_plan("cost", "budget", "monthly_limit_usd")`` reads that path of the plan document."""

    def read(c: Context) -> Any:
        value: Any = c.plan
        for key in keys:
            value = value[key]
        return value

    return read


def _queries(metrics: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """An alarm's ``Metrics`` without the dimension values and accounts (wiring): per query its id, expression,
    label, metric, namespace, dimension names, period and statistic."""
    out = []
    for q in metrics:
        stat = q.get("MetricStat")
        metric = stat["Metric"] if stat else {}
        out.append(
            (
                q["Id"],
                q.get("Expression"),
                q.get("Label"),
                metric.get("MetricName"),
                metric.get("Namespace"),
                _names(metric.get("Dimensions", [])),
                stat["Period"] if stat else None,
                stat["Stat"] if stat else None,
            )
        )
    return out


def _planned_queries(c: Context) -> list[tuple[Any, ...]]:
    """The ``Metrics`` an alarm's plan entry describes: the band over ``m0`` (anomaly), the expression over its
    metrics (metric math), or the metric alone as ``m1`` (a plain metric read from another account)."""
    a = c.alarm
    stat = (a["namespace"], a["dimensions"], a["period_seconds"])

    def query(qid: str, metric: str, statistic: str) -> tuple[Any, ...]:
        return (qid, None, None, metric, stat[0], stat[1], stat[2], statistic)

    def expression(text: str, label: str | None) -> tuple[Any, ...]:
        return ("expr_1", text, label, None, None, [], None, None)

    if a["kind"] == "anomaly":
        band = f"ANOMALY_DETECTION_BAND(m0, {js_number(a['std_devs'])})"
        return [expression(band, "Anomaly Detection Band"), query("m0", a["metric"], a["statistic"])]
    if a["expression"]:
        using = [query(m["id"], m["metric"], m["statistic"]) for m in a["metrics"]]
        return [expression(a["expression"], a["expression_label"]), *using]
    return [query("m1", a["metric"], a["statistic"])]


def _body_text(body: Any) -> str:
    """A dashboard body's JSON text with its tokens (the Region) left out."""
    if isinstance(body, dict) and "Fn::Join" in body:
        return "".join(p for p in body["Fn::Join"][1] if isinstance(p, str))
    return str(body)


_COMPONENT_ROW = ": invocations (left, sum) and requests that found no copy (right, sum)"


def _dashboard_content(body: Any) -> dict[str, Any]:
    """What a dashboard body shows that the plan decides: per-GPU widgets (endpoint names), per-profile widgets,
    the source accounts' cost lines, and for the governance dashboard its guardrail rows and delivery graph."""
    titles = [w.get("properties", {}).get("title", "") for w in json.loads(_body_text(body))["widgets"]]
    # A component's row: "<endpoint>: ..." for the one an endpoint is served by, "<endpoint> <component>: ..." after.
    components = [t.split(": ", 1)[0].replace(" ", "/") for t in titles if t.endswith(_COMPONENT_ROW)]
    return {
        "gpu_endpoints": [t.split("/", 1)[0] for t in titles if ": GPU per device" in t],
        "profiles": [
            re.sub(r" \(.*\)$", "", t.split(": tokens per invocation", 1)[0])
            for t in titles
            if ": tokens per invocation and cache-hit ratio" in t
        ],
        "source_account_ids": re.findall(r"(\d{12}) estimated charges", _body_text(body)),
        "guardrails": sum(t.startswith("Guardrail of ") for t in titles),
        "delivery": "Invocation log delivery" in titles,
        **({"components": components} if components else {}),
    }


def _planned_dashboard(c: Context) -> dict[str, Any]:
    obs = c.plan["observability"]
    governance = obs["governance_alarms"]
    if c.owner.startswith("Governance/"):
        return {
            "gpu_endpoints": [],
            "profiles": [],
            "source_account_ids": [],
            "guardrails": sum(a["metric"] == "InvocationsIntervened" for a in governance),
            "delivery": any(a["namespace"] == "AWS/Bedrock" for a in governance),
        }
    shown = {k: v for k, v in obs["dashboard"].items() if not k.endswith("_reason")}
    return {**shown, "guardrails": 0, "delivery": False}


def _budget_notifications(c: Context) -> list[tuple[str, float, list[str]]]:
    b = c.plan["cost"]["budget"]
    emails = b["notify_emails"]
    return [("ACTUAL", p, emails) for p in b["notify_at_percent"]] + [("FORECASTED", 100, emails)]


def _notifications(items: list[dict[str, Any]]) -> list[tuple[str, float, list[str]]]:
    return [
        (
            n["Notification"]["NotificationType"],
            n["Notification"]["Threshold"],
            [s["Address"] for s in n["Subscribers"]],
        )
        for n in items
    ]


def _role_name(arn: str) -> str:
    return arn.rsplit("/", 1)[-1]


def _sampling(key: str) -> Callable[[Context], Any]:
    return lambda c: c.plan["observability"]["xray_sampling"][key]


def _profile(c: Context) -> Entry:
    return next(p for p in c.plan["bedrock"] if p["name"] == c.owner.split("/", 1)[0])


def _guardrail(c: Context) -> Entry:
    """The plan's guardrail of the profile whose guardrail construct (``<profile>Guardrail``) owns the resource."""
    owner = c.owner.split("/", 1)[0]
    return next(p["guardrail"] for p in c.plan["bedrock"] if f"{p['name']}Guardrail" == owner)


def _g(key: str) -> Callable[[Context], Any]:
    return lambda c: _guardrail(c)[key]


def _router(c: Context) -> Entry:
    return next(r for r in c.plan["bedrock_routers"] if f"Router{r['name']}" == c.owner.split("/", 1)[0])


def _arn_tail(value: Any) -> str:
    """The last ``/`` part of an ARN (a ``Fn::Join`` of the partition and Region with the model's id)."""
    return _body_text(value).rsplit("/", 1)[-1]


def _logging(key: str) -> Callable[[Context], Any]:
    return lambda c: c.plan["bedrock_invocation_logging"][key]


def _logging_data(kind: str) -> Callable[[Context], Any]:
    return lambda c: c.plan["bedrock_invocation_logging"]["data"][kind]


def _bucket(value: Any) -> str:
    return value if isinstance(value, str) else "created"


def _names(dimensions: list[dict[str, Any]]) -> list[str]:
    return [d["Name"] for d in dimensions]


def _async_output(c: Context) -> Any:
    return c.endpoint["hosting"]["async_inference"]["output_s3_uri"]


def _schedules(c: Context) -> list[tuple[str, int, int | None]]:
    return [(s["cron"], s["min"], s["max"]) for s in c.endpoint["scaling"]["schedules"]]


def _scheduled_actions(actions: list[dict[str, Any]]) -> list[tuple[str, int, int | None]]:
    return [
        (a["Schedule"], a["ScalableTargetAction"].get("MinCapacity"), a["ScalableTargetAction"].get("MaxCapacity"))
        for a in actions
    ]


def _staged_uri(value: Any) -> Any:
    """A GetAtt of a staging resource's ``S3Uri`` (the prefix the job wrote, known once staged) as a label."""
    if isinstance(value, dict) and value.get("Fn::GetAtt", [None, None])[1] == "S3Uri":
        return "<S3Uri of WeightsStaging>"
    return value


def _staged(name: str) -> Callable[[Context], Any]:
    return lambda c: c.endpoint["model_access"]["staged_to"][name]


PROPERTY_MAP: dict[tuple[str, str], Source] = {
    # ------------------------------------------------------------------------------------------ hub model staging
    (STAGING, "ServiceToken"): Wiring("the stack's staging provider (its framework function's ARN)"),
    (STAGING, "ModelId"): Plan("model_access.staged_to.model_id", _staged("model_id")),
    (STAGING, "Revision"): Plan("model_access.staged_to.revision", _staged("revision")),
    (STAGING, "KeyPrefix"): Plan("model_access.staged_to.key_prefix", _staged("key_prefix")),
    (STAGING, "Bucket"): Wiring("the stack's data bucket (Ref), model_access.staged_to.bucket"),
    (STAGING, "ProjectName"): Wiring("the endpoint's staging CodeBuild project (Ref)"),
    # ------------------------------------------------------------------------------------------ Model
    (MODEL, "ExecutionRoleArn"): Wiring("the endpoint's execution role (GetAtt)"),
    (MODEL, "PrimaryContainer.Image"): Wiring(
        "the plan's container.image resolved per region through the stack's image mapping (FindInMap), or the "
        "custom image uri"
    ),
    (MODEL, "PrimaryContainer.Environment"): Plan(
        "container.environment (a pool's own model: hosting.instance_pools.pools[].environment)", _model_environment
    ),
    (MODEL, "PrimaryContainer.ModelDataUrl"): Plan(
        "hosting.model_data.uri", lambda c: c.endpoint["hosting"]["model_data"]["uri"]
    ),
    (MODEL, "PrimaryContainer.ModelDataSource.S3DataSource.S3Uri"): Plan(
        "hosting.model_data.uri, or the staging resource's S3Uri when model_data.staged_key_prefix is set",
        lambda c: (
            c.endpoint["hosting"]["model_data"]["uri"]
            or ("<S3Uri of WeightsStaging>" if c.endpoint["hosting"]["model_data"]["staged_key_prefix"] else None)
        ),
        _staged_uri,
    ),
    (MODEL, "PrimaryContainer.ModelDataSource.S3DataSource.S3DataType"): Fixed("S3Prefix", "model_data.kind prefix"),
    (MODEL, "PrimaryContainer.ModelDataSource.S3DataSource.CompressionType"): Fixed("None", "model_data.kind prefix"),
    (MODEL, "PrimaryContainer.Mode"): Fixed("MultiModel", "written only when model_data.kind is multi-model"),
    (MODEL, "PrimaryContainer.MultiModelConfig.ModelCacheSetting"): Plan(
        "hosting.multi_model_cache", lambda c: "Enabled" if c.endpoint["hosting"]["multi_model_cache"] else "Disabled"
    ),
    (MODEL, "EnableNetworkIsolation"): Plan("hosting.network_isolation", _h("network_isolation")),
    (MODEL, "VpcConfig.Subnets"): Plan("hosting.vpc.subnet_ids", lambda c: c.endpoint["hosting"]["vpc"]["subnet_ids"]),
    (MODEL, "VpcConfig.SecurityGroupIds"): Plan(
        "hosting.vpc.security_group_ids", lambda c: c.endpoint["hosting"]["vpc"]["security_group_ids"]
    ),
    (MODEL, "Tags"): TAGS,
    # ------------------------------------------------------------------------------------------ EndpointConfig
    (CONFIG, "ProductionVariants"): Wiring("a list of one variant: each of its properties is mapped below"),
    (CONFIG, "KmsKeyId"): Plan("hosting.kms_key_arn", _h("kms_key_arn")),
    (CONFIG, "ExecutionRoleArn"): Wiring("the execution role, on an inference-component endpoint (GetAtt)"),
    (CONFIG, "AsyncInferenceConfig.OutputConfig.S3OutputPath"): Plan(
        "hosting.async_inference.output_s3_uri (else the stack's data bucket under async/<endpoint>)",
        lambda c: _async_output(c) or "<data bucket>",
        lambda value: value if isinstance(value, str) else "<data bucket>",
    ),
    (CONFIG, "AsyncInferenceConfig.OutputConfig.S3FailurePath"): Plan(
        "hosting.async_inference.output_s3_uri + /failures (else the data bucket)",
        lambda c: f"{_async_output(c)}/failures" if _async_output(c) else "<data bucket>",
        lambda value: value if isinstance(value, str) else "<data bucket>",
    ),
    (CONFIG, "AsyncInferenceConfig.OutputConfig.KmsKeyId"): Plan("hosting.kms key", _h("kms_key_arn")),
    (CONFIG, "AsyncInferenceConfig.OutputConfig.NotificationConfig.SuccessTopic"): Wiring("the success topic (Ref)"),
    (CONFIG, "AsyncInferenceConfig.OutputConfig.NotificationConfig.ErrorTopic"): Wiring("the error topic (Ref)"),
    (CONFIG, "AsyncInferenceConfig.ClientConfig.MaxConcurrentInvocationsPerInstance"): Plan(
        "hosting.async_inference.max_concurrent_invocations_per_instance",
        lambda c: c.endpoint["hosting"]["async_inference"]["max_concurrent_invocations_per_instance"],
    ),
    (CONFIG, "DataCaptureConfig.CaptureOptions"): Fixed(
        [{"CaptureMode": "Input"}, {"CaptureMode": "Output"}], "requests and responses are both captured"
    ),
    (CONFIG, "DataCaptureConfig.DestinationS3Uri"): Plan(
        "hosting.data_capture.s3_uri (else the data bucket under capture/<endpoint>)",
        lambda c: c.endpoint["hosting"]["data_capture"]["s3_uri"] or "<data bucket>",
        lambda value: value if isinstance(value, str) else "<data bucket>",
    ),
    (CONFIG, "DataCaptureConfig.EnableCapture"): Fixed(True, "written only when data capture is planned"),
    (CONFIG, "DataCaptureConfig.InitialSamplingPercentage"): Plan(
        "hosting.data_capture.sampling_percent", lambda c: c.endpoint["hosting"]["data_capture"]["sampling_percent"]
    ),
    (CONFIG, "DataCaptureConfig.KmsKeyId"): Plan("hosting.kms_key_arn", _h("kms_key_arn")),
    (CONFIG, "Tags"): TAGS,
    (CONFIG, "MetricsConfig.EnableDetailedObservability"): Plan(
        "hosting.metrics_config.enable_detailed_observability", _hb("metrics_config", "enable_detailed_observability")
    ),
    (CONFIG, "MetricsConfig.EnableEnhancedMetrics"): Plan(
        "hosting.metrics_config.enable_enhanced_metrics", _hb("metrics_config", "enable_enhanced_metrics")
    ),
    (CONFIG, "MetricsConfig.MetricPublishFrequencyInSeconds"): Plan(
        "hosting.metrics_config.metric_publish_frequency_seconds",
        _hb("metrics_config", "metric_publish_frequency_seconds"),
    ),
    # ---------------------------------------------------------------------------- EndpointConfig variant
    (CONFIG, "ProductionVariants[0].VariantName"): Plan("hosting.variant_name", _h("variant_name")),
    (CONFIG, "ProductionVariants[0].ModelName"): Wiring("the model (GetAtt)"),
    (CONFIG, "ProductionVariants[0].InstanceType"): Plan("instance_type", lambda c: c.endpoint["instance_type"]),
    (CONFIG, "ProductionVariants[0].InitialInstanceCount"): Plan(
        "components.initial_instance_count with components, else hosting.initial_instance_count",
        lambda c: (c.endpoint.get("components") or c.endpoint["hosting"])["initial_instance_count"],
    ),
    (CONFIG, "ProductionVariants[0].InitialVariantWeight"): Fixed(1, "one variant takes all traffic"),
    (CONFIG, "ProductionVariants[0].InstancePools"): Plan(
        "hosting.instance_pools.pools (instance_type, priority, model_override: a pool model's GetAtt)",
        _pools,
        _pool_items,
    ),
    (CONFIG, "ProductionVariants[0].VariantInstanceProvisionTimeoutInSeconds"): Plan(
        "hosting.instance_pools.variant_instance_provision_timeout_seconds",
        _hb("instance_pools", "variant_instance_provision_timeout_seconds"),
    ),
    (CONFIG, "ProductionVariants[0].CapacityReservationConfig.CapacityReservationPreference"): Plan(
        "hosting.capacity_reservation.capacity_reservation_preference",
        _hb("capacity_reservation", "capacity_reservation_preference"),
    ),
    (CONFIG, "ProductionVariants[0].CapacityReservationConfig.MlReservationArn"): Plan(
        "hosting.capacity_reservation.ml_reservation_arn", _hb("capacity_reservation", "ml_reservation_arn")
    ),
    (CONFIG, "ProductionVariants[0].ModelDataDownloadTimeoutInSeconds"): Plan(
        "container.model_data_download_timeout_seconds", _c("model_data_download_timeout_seconds")
    ),
    (CONFIG, "ProductionVariants[0].ContainerStartupHealthCheckTimeoutInSeconds"): Plan(
        "container.container_startup_health_check_timeout_seconds", _c("container_startup_health_check_timeout_seconds")
    ),
    (CONFIG, "ProductionVariants[0].VolumeSizeInGB"): Plan("hosting.volume_size_gb", _h("volume_size_gb")),
    (CONFIG, "ProductionVariants[0].InferenceAmiVersion"): Plan(
        "hosting.inference_ami_version", _h("inference_ami_version")
    ),
    (CONFIG, "ProductionVariants[0].RoutingConfig.RoutingStrategy"): Plan(
        "container.routing_strategy", _c("routing_strategy")
    ),
    (CONFIG, "ProductionVariants[0].RoutingConfig.PrefixAwareRoutingConfig.PrefixLength"): Plan(
        "container.prefix_aware_routing.prefix_length",
        lambda c: c.endpoint["container"]["prefix_aware_routing"]["prefix_length"],
    ),
    (CONFIG, "ProductionVariants[0].RoutingConfig.PrefixAwareRoutingConfig.ConcurrencyThreshold"): Plan(
        "container.prefix_aware_routing.concurrency_threshold",
        lambda c: c.endpoint["container"]["prefix_aware_routing"]["concurrency_threshold"],
    ),
    (CONFIG, "ProductionVariants[0].ManagedInstanceScaling.Status"): Fixed(
        "ENABLED", "an inference-component variant scales its instances with its copies"
    ),
    (CONFIG, "ProductionVariants[0].ManagedInstanceScaling.MinInstanceCount"): Plan(
        "components.managed_instance_scaling.min (0 without components: the variant may reach zero instances)",
        lambda c: c.endpoint["components"]["managed_instance_scaling"]["min"] if c.endpoint.get("components") else 0,
    ),
    (CONFIG, "ProductionVariants[0].ManagedInstanceScaling.MaxInstanceCount"): Plan(
        "inference_component.max_instance_count", _ic("max_instance_count")
    ),
    (CONFIG, "ProductionVariants[0].ServerlessConfig.MemorySizeInMB"): Plan("serverless.memory_mb", _sl("memory_mb")),
    (CONFIG, "ProductionVariants[0].ServerlessConfig.MaxConcurrency"): Plan(
        "serverless.max_concurrency", _sl("max_concurrency")
    ),
    (CONFIG, "ProductionVariants[0].ServerlessConfig.ProvisionedConcurrency"): Plan(
        "serverless.provisioned_concurrency (left off when 0)", _sl("provisioned_concurrency")
    ),
    # ------------------------------------------------------------------------------------------ Endpoint
    (ENDPOINT, "EndpointName"): Plan("endpoint_name", lambda c: c.endpoint["endpoint_name"]),
    (ENDPOINT, "EndpointConfigName"): Wiring("the endpoint config (GetAtt)"),
    (ENDPOINT, "DeploymentConfig.AutoRollbackConfiguration.Alarms"): Plan(
        "deployment.rollback_alarms (one Ref each)", lambda c: len(c.endpoint["deployment"]["rollback_alarms"]), len
    ),
    (ENDPOINT, "DeploymentConfig.BlueGreenUpdatePolicy.MaximumExecutionTimeoutInSeconds"): Plan(
        "deployment.maximum_execution_timeout_seconds", _d("maximum_execution_timeout_seconds")
    ),
    (ENDPOINT, "DeploymentConfig.BlueGreenUpdatePolicy.TerminationWaitInSeconds"): Plan(
        "deployment.termination_wait_seconds", _d("termination_wait_seconds")
    ),
    (ENDPOINT, "DeploymentConfig.BlueGreenUpdatePolicy.TrafficRoutingConfiguration.Type"): Plan(
        "deployment.traffic_routing", _d("traffic_routing")
    ),
    (ENDPOINT, "DeploymentConfig.BlueGreenUpdatePolicy.TrafficRoutingConfiguration.WaitIntervalInSeconds"): Plan(
        "deployment.wait_interval_seconds", _d("wait_interval_seconds")
    ),
    (ENDPOINT, "DeploymentConfig.BlueGreenUpdatePolicy.TrafficRoutingConfiguration.CanarySize.Type"): Fixed(
        "CAPACITY_PERCENT", "sizes are percents of the fleet"
    ),
    (ENDPOINT, "DeploymentConfig.BlueGreenUpdatePolicy.TrafficRoutingConfiguration.CanarySize.Value"): Plan(
        "deployment.canary_size_percent", _d("canary_size_percent")
    ),
    (ENDPOINT, "DeploymentConfig.BlueGreenUpdatePolicy.TrafficRoutingConfiguration.LinearStepSize.Type"): Fixed(
        "CAPACITY_PERCENT", "sizes are percents of the fleet"
    ),
    (ENDPOINT, "DeploymentConfig.BlueGreenUpdatePolicy.TrafficRoutingConfiguration.LinearStepSize.Value"): Plan(
        "deployment.linear_step_percent", _d("linear_step_percent")
    ),
    (ENDPOINT, "RetainAllVariantProperties"): Plan(
        "deployment.retain_all_variant_properties (left off when false)", _d("retain_all_variant_properties")
    ),
    (ENDPOINT, "Tags"): TAGS,
    # ------------------------------------------------------------------------------------------ InferenceComponent
    (COMPONENT, "EndpointName"): Plan("endpoint_name", lambda c: c.endpoint["endpoint_name"]),
    (COMPONENT, "InferenceComponentName"): Wiring(
        "a deterministic name from the construct path, so its metrics and scaling target have a known dimension"
    ),
    (COMPONENT, "VariantName"): Plan("hosting.variant_name", _h("variant_name")),
    (COMPONENT, "RuntimeConfig.CopyCount"): Plan(
        "inference_component.initial_instance_count (one copy fills one instance)", _ic("initial_instance_count")
    ),
    (COMPONENT, "Specification.ModelName"): Wiring("the model (GetAtt)"),
    (COMPONENT, "Specification.ComputeResourceRequirements.MinMemoryRequiredInMb"): Plan(
        "inference_component.min_memory_required_mb", _ic("min_memory_required_mb")
    ),
    (COMPONENT, "Specification.ComputeResourceRequirements.NumberOfAcceleratorDevicesRequired"): Plan(
        "inference_component.accelerator_devices", _ic("accelerator_devices")
    ),
    (COMPONENT, "Specification.StartupParameters.ModelDataDownloadTimeoutInSeconds"): Plan(
        "container.model_data_download_timeout_seconds", _c("model_data_download_timeout_seconds")
    ),
    (COMPONENT, "Specification.StartupParameters.ContainerStartupHealthCheckTimeoutInSeconds"): Plan(
        "container.container_startup_health_check_timeout_seconds", _c("container_startup_health_check_timeout_seconds")
    ),
    (COMPONENT, "DeploymentConfig.AutoRollbackConfiguration.Alarms"): Plan(
        "deployment.rollback_alarms (one Ref each)", lambda c: len(c.endpoint["deployment"]["rollback_alarms"]), len
    ),
    (COMPONENT, "DeploymentConfig.RollingUpdatePolicy.MaximumBatchSize.Type"): Fixed(
        "CAPACITY_PERCENT", "the batch is a percent of the copies"
    ),
    (COMPONENT, "DeploymentConfig.RollingUpdatePolicy.MaximumBatchSize.Value"): Plan(
        "deployment.rolling_batch_percent", _d("rolling_batch_percent")
    ),
    (COMPONENT, "DeploymentConfig.RollingUpdatePolicy.MaximumExecutionTimeoutInSeconds"): Plan(
        "deployment.rolling_maximum_execution_timeout_seconds", _d("rolling_maximum_execution_timeout_seconds")
    ),
    (COMPONENT, "DeploymentConfig.RollingUpdatePolicy.WaitIntervalInSeconds"): Plan(
        "deployment.wait_interval_seconds", _d("wait_interval_seconds")
    ),
    (COMPONENT, "Specification.SchedulingConfig.PlacementStrategy"): Plan(
        "components.placement", lambda c: c.endpoint["components"]["placement"]
    ),
    (COMPONENT, "Specification.SchedulingConfig.AvailabilityZoneBalance.EnforcementMode"): Fixed(
        "PERMISSIVE", "the schema's only enforcement mode, required with a placement strategy"
    ),
    (COMPONENT, "Specification.SchedulingConfig.AvailabilityZoneBalance.MaxImbalance"): Plan(
        "components.max_az_imbalance", lambda c: c.endpoint["components"]["max_az_imbalance"]
    ),
    (COMPONENT, "Specification.DataCacheConfig.EnableCaching"): Plan(
        "components.data_cache", lambda c: c.endpoint["components"]["data_cache"]
    ),
    (COMPONENT, "Specification.BaseInferenceComponentName"): Wiring("the base component's deterministic name"),
    (COMPONENT, "Specification.Container.ArtifactUrl"): Plan(
        "components.adapters[].artifact_url", lambda c: c.endpoint["adapter"]["artifact_url"]
    ),
    (COMPONENT, "Tags"): TAGS,
    # ------------------------------------------------------------------------------------------ ScalableTarget
    (TARGET, "MinCapacity"): Plan("scaling.min_capacity", _s("min_capacity")),
    (TARGET, "MaxCapacity"): Plan("scaling.max_capacity", _s("max_capacity")),
    (TARGET, "ScalableDimension"): Plan("scaling.scalable_dimension", _s("scalable_dimension")),
    (TARGET, "ServiceNamespace"): Fixed("sagemaker", "every scalable target is a SageMaker one"),
    (TARGET, "ResourceId"): Wiring(
        "endpoint/<endpoint_name>/variant/<variant_name>, or the inference component's name"
    ),
    (TARGET, "RoleARN"): Wiring("Application Auto Scaling's service-linked role for SageMaker"),
    (TARGET, "ScheduledActions"): Plan("scaling.schedules (cron, min, max)", _schedules, _scheduled_actions),
    (TARGET, "Tags"): TAGS,
    # ------------------------------------------------------------------------------------------ ScalingPolicy
    (POLICY, "PolicyName"): Wiring("unique name from the construct path (the plan's policy id is its last part)"),
    (POLICY, "ScalingTargetId"): Wiring("the scalable target (Ref)"),
    (POLICY, "PolicyType"): Plan(
        "scaling.policies[].type",
        lambda c: "StepScaling" if c.policy["type"] == "step" else "TargetTrackingScaling",
    ),
    (POLICY, "TargetTrackingScalingPolicyConfiguration.TargetValue"): Plan(
        "scaling.policies[].target_value", _p("target_value")
    ),
    (POLICY, "TargetTrackingScalingPolicyConfiguration.ScaleInCooldown"): Plan(
        "scaling.policies[].scale_in_cooldown_seconds", _p("scale_in_cooldown_seconds")
    ),
    (POLICY, "TargetTrackingScalingPolicyConfiguration.ScaleOutCooldown"): Plan(
        "scaling.policies[].scale_out_cooldown_seconds", _p("scale_out_cooldown_seconds")
    ),
    (POLICY, "TargetTrackingScalingPolicyConfiguration.PredefinedMetricSpecification.PredefinedMetricType"): Plan(
        "scaling.policies[].metric", _p("metric")
    ),
    (POLICY, "TargetTrackingScalingPolicyConfiguration.CustomizedMetricSpecification.MetricName"): Plan(
        "scaling.policies[].metric", _p("metric")
    ),
    (POLICY, "TargetTrackingScalingPolicyConfiguration.CustomizedMetricSpecification.Namespace"): Plan(
        "scaling.policies[].namespace", _p("namespace")
    ),
    (POLICY, "TargetTrackingScalingPolicyConfiguration.CustomizedMetricSpecification.Statistic"): Plan(
        "scaling.policies[].statistic", _p("statistic")
    ),
    (POLICY, "TargetTrackingScalingPolicyConfiguration.CustomizedMetricSpecification.Dimensions"): Plan(
        "scaling.policies[].dimensions (names; values are the endpoint's names)", _p("dimensions"), _names
    ),
    (POLICY, "StepScalingPolicyConfiguration.AdjustmentType"): Fixed("ChangeInCapacity", "a wake-up adds capacity"),
    (POLICY, "StepScalingPolicyConfiguration.Cooldown"): Plan(
        "scaling.policies[].cooldown_seconds", _p("cooldown_seconds")
    ),
    (POLICY, "StepScalingPolicyConfiguration.MetricAggregationType"): Plan(
        "scaling.policies[].metric_aggregation", _p("metric_aggregation")
    ),
    (POLICY, "StepScalingPolicyConfiguration.StepAdjustments"): Plan(
        "scaling.policies[].adjustment (from 0 up)",
        lambda c: [{"MetricIntervalLowerBound": 0, "ScalingAdjustment": c.policy["adjustment"]}],
    ),
    # ------------------------------------------------------------------------------------------ Alarms
    (ALARM, "AlarmDescription"): Plan("the alarm's reason", _a("description")),
    (ALARM, "AlarmActions"): Wiring(
        "the wake-up step policy (Ref), or the platform's alarm topic (Ref, an import in other stacks), or the "
        "Bedrock stack's governance topic"
    ),
    (ALARM, "OKActions"): Wiring("the alarm topic (Ref or import), on every alarm that notifies people"),
    (ALARM, "Metrics"): Plan(
        "kind, std_devs, expression, expression_label, metrics, metric, namespace, dimensions, period_seconds",
        _planned_queries,
        _queries,
    ),
    (ALARM, "ThresholdMetricId"): Fixed("expr_1", "an anomaly alarm's threshold is its band, query expr_1"),
    (ALARM, "Namespace"): Plan("namespace", _a("namespace")),
    (ALARM, "MetricName"): Plan("metric", _a("metric")),
    (ALARM, "Statistic"): Plan("statistic", _a("statistic")),
    (ALARM, "ExtendedStatistic"): Plan("statistic", _a("statistic")),
    (ALARM, "Unit"): Plan("unit", _a("unit")),
    (ALARM, "Period"): Plan("period_seconds", _a("period_seconds")),
    (ALARM, "Threshold"): Plan("threshold", _a("threshold")),
    (ALARM, "ComparisonOperator"): Plan("comparison_operator", _a("comparison_operator")),
    (ALARM, "EvaluationPeriods"): Plan("evaluation_periods", _a("evaluation_periods")),
    (ALARM, "DatapointsToAlarm"): Plan("datapoints_to_alarm", _a("datapoints_to_alarm")),
    (ALARM, "TreatMissingData"): Plan("treat_missing_data", _a("treat_missing_data")),
    (ALARM, "Dimensions"): Plan("dimensions (names; values are the endpoint's names)", _a("dimensions"), _names),
    (ALARM, "Tags"): TAGS,
    # ------------------------------------------------------------------------------------------ Alarm topics
    (TOPIC, "DisplayName"): Fixed("Inference alarms", "the name people see on a notification"),
    (TOPIC, "KmsMasterKeyId"): Wiring("the topic's customer-managed KMS key (Ref)"),
    (TOPIC, "Tags"): TAGS,
    (SUBSCRIPTION, "Endpoint"): Plan("observability.alarm_email", _at_plan("observability", "alarm_email")),
    (SUBSCRIPTION, "Protocol"): Fixed("email", "the alarm address is an e-mail address"),
    (SUBSCRIPTION, "TopicArn"): Wiring("the alarm topic (Ref)"),
    # ------------------------------------------------------------------------------------------ Dashboards
    (DASHBOARD, "DashboardBody"): Plan(
        "observability.dashboard (gpu_endpoints, profiles, source_account_ids, components), or the governance alarms' "
        "guardrails and delivery destinations; the fleet rows are a fixed layout",
        _planned_dashboard,
        _dashboard_content,
    ),
    (DASHBOARD, "Tags"): TAGS,
    # ------------------------------------------------------------------------------------------ X-Ray
    (SAMPLING, "SamplingRule.FixedRate"): Plan("observability.xray_sampling.fixed_rate", _sampling("fixed_rate")),
    (SAMPLING, "SamplingRule.Priority"): Plan("observability.xray_sampling.priority", _sampling("priority")),
    (SAMPLING, "SamplingRule.ReservoirSize"): Plan(
        "observability.xray_sampling.reservoir_size", _sampling("reservoir_size")
    ),
    (SAMPLING, "SamplingRule.ServiceName"): Plan("observability.xray_sampling.service_name", _sampling("service_name")),
    (SAMPLING, "SamplingRule.URLPath"): Plan("observability.xray_sampling.url_path", _sampling("url_path")),
    (SAMPLING, "SamplingRule.HTTPMethod"): Fixed("*", "every method"),
    (SAMPLING, "SamplingRule.Host"): Fixed("*", "every host"),
    (SAMPLING, "SamplingRule.ResourceARN"): Fixed("*", "every resource"),
    (SAMPLING, "SamplingRule.ServiceType"): Fixed("*", "every service type"),
    (SAMPLING, "SamplingRule.Version"): Fixed(1, "the only sampling rule version"),
    (SAMPLING, "SamplingRule.RuleName"): Wiring("a unique name from the construct path"),
    (SAMPLING, "Tags"): TAGS,
    # ------------------------------------------------------------------------------------------ Budget
    (BUDGET, "Budget.BudgetLimit.Amount"): Plan(
        "cost.budget.monthly_limit_usd", _at_plan("cost", "budget", "monthly_limit_usd")
    ),
    (BUDGET, "Budget.BudgetLimit.Unit"): Fixed("USD", "budgets are in US dollars"),
    (BUDGET, "Budget.BudgetType"): Fixed("COST", "a cost budget"),
    (BUDGET, "Budget.TimeUnit"): Fixed("MONTHLY", "a monthly budget"),
    (BUDGET, "Budget.FilterExpression.Or"): Plan(
        "cost.budget_filter.Or (the platform tag key with and without user:)", _at_plan("cost", "budget_filter", "Or")
    ),
    (BUDGET, "Budget.Metrics"): Plan("cost.budget.metrics", _at_plan("cost", "budget", "metrics")),
    (BUDGET, "NotificationsWithSubscribers"): Plan(
        "cost.budget.notify_at_percent (actual spend; the forecast at 100 %) to cost.budget.notify_emails",
        _budget_notifications,
        _notifications,
    ),
    (BUDGET, "ResourceTags"): TAGS,
    (BUDGET_ACTION, "ActionThreshold.Type"): Fixed("PERCENTAGE", "the threshold is a percent of the limit"),
    (BUDGET_ACTION, "ActionThreshold.Value"): Plan(
        "cost.budget.deny_at_percent", _at_plan("cost", "budget", "deny_at_percent")
    ),
    (BUDGET_ACTION, "ActionType"): Fixed("APPLY_IAM_POLICY", "the action attaches the deny policy"),
    (BUDGET_ACTION, "ApprovalModel"): Fixed("AUTOMATIC", "no one approves a deny at the threshold"),
    (BUDGET_ACTION, "BudgetName"): Wiring("the budget (Ref)"),
    (BUDGET_ACTION, "Definition.IamActionDefinition.PolicyArn"): Wiring("the deny policy (Ref)"),
    (BUDGET_ACTION, "Definition.IamActionDefinition.Roles"): Plan(
        "cost.budget.deny_role_arns (role names)",
        lambda c: [_role_name(a) for a in c.plan["cost"]["budget"]["deny_role_arns"]],
    ),
    (BUDGET_ACTION, "ExecutionRoleArn"): Wiring("the role Budgets assumes to attach the policy (GetAtt)"),
    (BUDGET_ACTION, "NotificationType"): Fixed("ACTUAL", "the deny acts on actual spend"),
    (BUDGET_ACTION, "Subscribers"): Plan(
        "cost.budget.notify_emails", _at_plan("cost", "budget", "notify_emails"), lambda v: [s["Address"] for s in v]
    ),
    (BUDGET_ACTION, "ResourceTags"): TAGS,
    # ------------------------------------------------------------------------------------------ Cost anomalies
    (MONITOR, "MonitorName"): Wiring("a unique name from the construct path"),
    (MONITOR, "MonitorSpecification"): Plan(
        "cost.anomaly_monitor_specification", _at_plan("cost", "anomaly_monitor_specification"), json.loads
    ),
    (MONITOR, "MonitorType"): Plan(
        "cost.anomaly_monitor (custom)", lambda c: c.plan["cost"]["anomaly_monitor"].upper()
    ),
    (MONITOR, "ResourceTags"): TAGS,
    (ANOMALY_SUBSCRIPTION, "Frequency"): Plan(
        "cost.anomaly_subscription.frequency", _at_plan("cost", "anomaly_subscription", "frequency")
    ),
    (ANOMALY_SUBSCRIPTION, "MonitorArnList"): Plan(
        "cost.existing_monitor_arn, else the monitor created here (GetAtt)",
        lambda c: [c.plan["cost"]["existing_monitor_arn"] or "<monitor>"],
        lambda v: [a if isinstance(a, str) else "<monitor>" for a in v],
    ),
    (ANOMALY_SUBSCRIPTION, "Subscribers"): Plan(
        "cost.anomaly_subscription.notify_email",
        lambda c: [{"Address": c.plan["cost"]["anomaly_subscription"]["notify_email"], "Type": "EMAIL"}],
    ),
    (ANOMALY_SUBSCRIPTION, "SubscriptionName"): Wiring("a unique name from the construct path"),
    (ANOMALY_SUBSCRIPTION, "ThresholdExpression"): Plan(
        "cost.anomaly_subscription.threshold_usd (total impact, at least)",
        lambda c: js_number(c.plan["cost"]["anomaly_subscription"]["threshold_usd"]),
        lambda v: json.loads(v)["Dimensions"]["Values"][0],
    ),
    (ANOMALY_SUBSCRIPTION, "ResourceTags"): TAGS,
    # ------------------------------------------------------------------------------------------ Bedrock profiles
    (PROFILE, "InferenceProfileName"): Plan("bedrock[].profile_name", lambda c: _profile(c)["profile_name"]),
    (PROFILE, "ModelSource.CopyFrom"): Plan(
        "bedrock[].model (the ARN's last part: the model or system profile it copies)",
        lambda c: _profile(c)["model"],
        lambda v: _body_text(v).rsplit("/", 1)[-1],
    ),
    (PROFILE, "Tags"): Plan(
        "tags, then bedrock[].tags", lambda c: {**c.plan["tags"], **_profile(c)["tags"]}, _tag_pairs
    ),
    # ------------------------------------------------------------------------------------------ Guardrails
    (GUARDRAIL, "Name"): Plan("bedrock[].guardrail.name", _g("name")),
    (GUARDRAIL, "Description"): Plan("bedrock[].guardrail.description", _g("description")),
    (GUARDRAIL, "BlockedInputMessaging"): Plan(
        "bedrock[].guardrail.blocked_input_messaging", _g("blocked_input_messaging")
    ),
    (GUARDRAIL, "BlockedOutputsMessaging"): Plan(
        "bedrock[].guardrail.blocked_outputs_messaging", _g("blocked_outputs_messaging")
    ),
    (GUARDRAIL, "ContentPolicyConfig.FiltersConfig"): Plan(
        "bedrock[].guardrail.content_filters",
        _g("content_filters"),
        lambda v: {f["Type"]: {"input": f["InputStrength"], "output": f["OutputStrength"]} for f in v},
    ),
    (GUARDRAIL, "TopicPolicyConfig.TopicsConfig"): Plan(
        "bedrock[].guardrail.denied_topics (each denied)",
        _g("denied_topics"),
        lambda v: [
            {"name": t["Name"], "definition": t["Definition"], "examples": t.get("Examples", [])}
            for t in v
            if t["Type"] == "DENY"
        ],
    ),
    (GUARDRAIL, "SensitiveInformationPolicyConfig.PiiEntitiesConfig"): Plan(
        "bedrock[].guardrail.pii_entities", _g("pii_entities"), lambda v: {e["Type"]: e["Action"] for e in v}
    ),
    (GUARDRAIL, "ContextualGroundingPolicyConfig.FiltersConfig"): Plan(
        "bedrock[].guardrail.contextual_grounding (the thresholds that are set)",
        lambda c: {k: v for k, v in _guardrail(c)["contextual_grounding"].items() if v is not None},
        lambda v: {f"{f['Type'].lower()}_threshold": f["Threshold"] for f in v},
    ),
    (GUARDRAIL, "Tags"): TAGS,
    (GUARDRAIL_VERSION, "Description"): Plan(
        "bedrock[].guardrail.policy_fingerprint (create-only: a new version per policy)",
        lambda c: f"policy {_guardrail(c)['policy_fingerprint']}",
    ),
    (GUARDRAIL_VERSION, "GuardrailIdentifier"): Wiring("the guardrail (GetAtt)"),
    # ------------------------------------------------------------------------------------------ Prompt routers
    (ROUTER, "PromptRouterName"): Plan("bedrock_routers[].router_name", lambda c: _router(c)["router_name"]),
    (ROUTER, "Models"): Plan(
        "bedrock_routers[].models", lambda c: _router(c)["models"], lambda v: [_arn_tail(m["ModelArn"]) for m in v]
    ),
    (ROUTER, "FallbackModel.ModelArn"): Plan(
        "bedrock_routers[].fallback_model", lambda c: _router(c)["fallback_model"], _arn_tail
    ),
    (ROUTER, "RoutingCriteria.ResponseQualityDifference"): Plan(
        "bedrock_routers[].response_quality_difference", lambda c: _router(c)["response_quality_difference"]
    ),
    (ROUTER, "Description"): Wiring("the router's description, as configured (create-only, hashed into the name)"),
    (ROUTER, "Tags"): Plan(
        "tags, then bedrock_routers[].tags", lambda c: {**c.plan["tags"], **_router(c)["tags"]}, _tag_pairs
    ),
    # ------------------------------------------------------------------------------------------ Invocation logging
    (LOGGING, "ServiceToken"): Wiring("the handler function (GetAtt)"),
    (LOGGING, "ServiceTimeout"): Fixed("300", "CloudFormation waits 5 minutes for the handler's answer"),
    **{
        (LOGGING, f"LoggingConfig.{kind}DataDeliveryEnabled"): Plan(
            f"bedrock_invocation_logging.data.{kind}",
            _logging_data(kind),
        )
        for kind in ("text", "image", "embedding", "video", "audio")
    },
    (LOGGING, "LoggingConfig.s3Config.bucketName"): Plan(
        "bedrock_invocation_logging.bucket (created: the stack's bucket)", _logging("bucket"), _bucket
    ),
    (LOGGING, "LoggingConfig.s3Config.keyPrefix"): Wiring("the prefix of an existing bucket, as configured"),
    (LOGGING, "LoggingConfig.cloudWatchConfig.logGroupName"): Wiring("the stack's log group (Ref)"),
    (LOGGING, "LoggingConfig.cloudWatchConfig.roleArn"): Wiring("the delivery role (GetAtt)"),
    (LOGGING, "LoggingConfig.cloudWatchConfig.largeDataDeliveryS3Config.bucketName"): Plan(
        "bedrock_invocation_logging.bucket (large objects of CloudWatch Logs delivery)", _logging("bucket"), _bucket
    ),
    (LOGGING, "LoggingConfig.cloudWatchConfig.largeDataDeliveryS3Config.keyPrefix"): Fixed(
        "large-data", "large objects go under their own prefix"
    ),
    (LOGGING, "OverwriteExisting"): Plan(
        "bedrock_invocation_logging.overwrite_existing", lambda c: str(_logging("overwrite_existing")(c)).lower()
    ),
}
