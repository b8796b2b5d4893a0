"""AWS constraints on the whole validated config, checked before any construct exists so that ``plan``
refuses what synth, CloudFormation or the service would: names after prefixing, the tag set each resource
ends up with, ARNs in the wrong region or account, S3 bucket names, duplicate list entries and construct
ids. The rules themselves are data in :mod:`inference_constructs.aws_limits`."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from inference_constructs import aws_limits as limits
from inference_constructs._ids import construct_id
from inference_constructs.config.schema import PlatformConfig
from inference_constructs.cost.capacity_tags import CAPACITY_TAG_KEYS, PLATFORM_TAG
from inference_constructs.errors import Problem
from inference_constructs.observability.metric_definitions import longest_dashboard_search
from inference_constructs.spec import EndpointKind


def platform_problems(config: PlatformConfig) -> list[Problem]:
    """Every AWS constraint the validated ``config`` breaks (empty when it can deploy)."""
    return [
        *_names(config),
        *_tags(config),
        *_arns(config),
        *_buckets(config),
        *_duplicates(config),
        *_construct_ids(config),
        *_dashboard_accounts(config),
        *_activated_keys(config),
    ]


def _activated_keys(config: PlatformConfig) -> Iterator[Problem]:
    """Every activated key must be on every taggable resource (synth requires it: ``RequireCostTags``)."""
    present = set(config.tags) | {PLATFORM_TAG, *CAPACITY_TAG_KEYS}
    for j, key in enumerate(config.cost.activate_cost_allocation_tags):
        if key not in present:
            yield Problem(
                f"cost.activate_cost_allocation_tags[{j}]",
                f"{key!r} is not in tags, so no resource of the platform carries it",
                f"add {key!r} to tags (every resource gets the platform's tags), or remove it here",
                "conflict",
            )


#: Widgets of the platform dashboard that do not depend on endpoints or profiles (fleet, Bedrock and cost
#: rows); a unit test builds the real dashboard and checks this figure.
DASHBOARD_FIXED_WIDGETS = 27


def dashboard_problems(config: PlatformConfig, gpu_endpoints: int, enhanced_widgets: int = 0) -> list[Problem]:
    """Whether the platform dashboard fits CloudWatch's widget limit with ``gpu_endpoints`` GPU graphs and
    ``enhanced_widgets`` widgets of endpoints with enhanced metrics on."""
    if not config.observability.dashboard:
        return []
    profiles = len(config.bedrock.profiles)
    widgets = DASHBOARD_FIXED_WIDGETS + (1 + gpu_endpoints if gpu_endpoints else 0) + (1 + profiles if profiles else 0)
    widgets += enhanced_widgets
    if widgets <= limits.MAX_DASHBOARD_WIDGETS:
        return []
    return [
        Problem(
            "endpoints",
            f"{gpu_endpoints} GPU endpoints and {profiles} profiles need {widgets} dashboard widgets",
            f"a dashboard holds at most {limits.MAX_DASHBOARD_WIDGETS}; set observability.dashboard: false, or split "
            "the platform",
            "too_large",
        )
    ]


def _dashboard_accounts(config: PlatformConfig) -> Iterator[Problem]:
    """The dashboard's longest SEARCH expression, with the account filter, within CloudWatch's limit (the same
    computation as the dashboard's own check)."""
    accounts = config.observability.source_account_ids
    longest = longest_dashboard_search(accounts) if accounts else 0
    if config.observability.dashboard and longest > limits.MAX_SEARCH_LENGTH:
        most = max(
            n for n in range(len(accounts)) if longest_dashboard_search(accounts[:n]) <= limits.MAX_SEARCH_LENGTH
        )
        yield Problem(
            "observability.source_account_ids",
            f"{len(accounts)} accounts make the dashboard's SEARCH expression {longest} characters long, over "
            f"CloudWatch's {limits.MAX_SEARCH_LENGTH}",
            f"list at most {most} accounts, or none to cover every linked account",
            "too_large",
        )


# --- names after prefixing ---------------------------------------------------------------------------


def _names(config: PlatformConfig) -> Iterator[Problem]:
    rule = limits.NAMES["sagemaker_endpoint"]
    for i, endpoint in enumerate(config.endpoints):
        full = f"{config.name}-{endpoint.name}"
        if len(full) > rule.max_length or not rule.pattern.match(full):
            yield Problem(
                f"endpoints[{i}].name",
                f"gives the {rule.what} {full!r}, which SageMaker refuses",
                f"the full name needs {rule.allowed}",
                "name",
            )
    rule = limits.NAMES["bedrock_profile"]
    for i, profile in enumerate(config.bedrock.profiles):
        if len(profile.name) > rule.max_length or not rule.pattern.match(profile.name):
            yield Problem(
                f"bedrock.profiles[{i}].name", f"{profile.name!r} is not allowed", f"use {rule.allowed}", "name"
            )


# --- tags: the set each resource ends up with ---------------------------------------------------------


def library_tag_keys(config: PlatformConfig) -> tuple[str, ...]:
    """The most tag keys the library itself puts on one non-Bedrock resource of ``config``."""
    keys: tuple[str, ...] = (PLATFORM_TAG,)
    if config.cost.capacity_tags and any(e.type is not EndpointKind.SERVERLESS for e in config.endpoints):
        keys += CAPACITY_TAG_KEYS
    return keys


def _tags(config: PlatformConfig) -> Iterator[Problem]:
    services = ["common", "iam", "sagemaker"] + (
        ["bedrock"] if config.bedrock.profiles or config.bedrock.routers else []
    )
    yield from _tag_set("tags", config.tags, [limits.TAGS[s] for s in services])
    own = library_tag_keys(config)
    total = len(config.tags) + len(own)
    common = limits.TAGS["common"]
    if total > common.max_tags:
        yield Problem(
            "tags",
            f"{len(config.tags)} tags plus the library's {len(own)} ({', '.join(own)}) make {total} on each "
            f"endpoint resource",
            f"use at most {common.max_tags - len(own)} platform tags (AWS allows {common.max_tags} per resource)",
            "tag_count",
        )
    bedrock = limits.TAGS["bedrock"]
    for path, own_tags in _bedrock_tag_sets(config):
        yield from _tag_set(path, own_tags, [bedrock])
        merged = {**config.tags, **own_tags}
        if len(merged) + 1 > bedrock.max_tags:
            yield Problem(
                path,
                f"with the platform tags and {PLATFORM_TAG} the resource carries {len(merged) + 1} tags",
                f"use at most {bedrock.max_tags} in all",
                "tag_count",
            )


def _bedrock_tag_sets(config: PlatformConfig) -> Iterator[tuple[str, Mapping[str, str]]]:
    for i, profile in enumerate(config.bedrock.profiles):
        yield f"bedrock.profiles[{i}].tags", profile.tags
    for i, router in enumerate(config.bedrock.routers):
        yield f"bedrock.routers[{i}].tags", router.tags


def _tag_set(path: str, tags: Mapping[str, str], rules: Sequence[limits.TagRule]) -> Iterator[Problem]:
    for key, value in tags.items():
        where = f"{path}.{key}"
        for prefix, why in limits.RESERVED_TAG_PREFIXES.items():
            if key.lower().startswith(prefix):
                yield Problem(where, f"keys starting with {prefix} are {why}", "choose another key", "tag_reserved")
        if len(key) > limits.TAG_KEY_MAX or len(value) > limits.TAG_VALUE_MAX:
            yield Problem(
                where,
                "tag key or value is too long",
                f"use keys of 1-{limits.TAG_KEY_MAX} and values of 0-{limits.TAG_VALUE_MAX} characters",
                "length",
            )
        for rule in rules:
            bad = "key" if not rule.key.match(key) else "value" if not rule.value.match(value) else None
            if bad:
                shown = key if bad == "key" else value
                yield Problem(
                    where,
                    f"tag {bad} {shown[:60]!r} has characters that {rule.service} refuse",
                    f"use {rule.allowed}",
                    "tag_chars",
                )
                break
    if any(rule.keys_case_insensitive for rule in rules):
        seen: dict[str, str] = {}
        for key in tags:
            first = seen.setdefault(key.lower(), key)
            if first != key:
                yield Problem(
                    f"{path}.{key}",
                    f"differs from {first!r} only by case; IAM treats them as one key",
                    "keep one spelling",
                    "tag_case",
                )


# --- ARNs: region, account, partition ------------------------------------------------------------------


def _arn_parts(arn: str) -> tuple[str, str, str]:
    """(partition, region, account) of an ARN already matched by the schema's pattern."""
    parts = arn.split(":", 5)
    return parts[1], parts[3], parts[4]


def _arns(config: PlatformConfig) -> Iterator[Problem]:
    region, account = config.region, config.account
    kms = limits.ARNS["kms_key_arn"]
    for i, endpoint in enumerate(config.endpoints):
        arn = endpoint.kms_key_arn
        if arn is None:
            continue
        partition, key_region, _ = _arn_parts(arn)
        path = f"endpoints[{i}].kms_key_arn"
        if region is None:
            yield Problem(
                path,
                f"a key in {key_region} pins the endpoint to {key_region}, but the platform is region-agnostic",
                f"set region: {key_region}, or remove kms_key_arn ({kms.why})",
                "arn_region",
            )
        elif key_region != region:
            yield Problem(
                path,
                f"the key is in {key_region}, the platform deploys to {region}",
                f"use a key in {region} ({kms.why})",
                "arn_region",
            )
        yield from _partition(path, partition, region, "kms:")
    role_lists = [
        (f"bedrock.profiles[{i}].invoke_role_arns", p.invoke_role_arns, limits.ARNS["invoke_role_arns"])
        for i, p in enumerate(config.bedrock.profiles)
    ] + [
        (f"bedrock.routers[{i}].invoke_role_arns", r.invoke_role_arns, limits.ARNS["invoke_role_arns"])
        for i, r in enumerate(config.bedrock.routers)
    ]
    role_lists.append(("cost.budget.deny_role_arns", config.cost.budget.deny_role_arns, limits.ARNS["deny_role_arns"]))
    first_seen: tuple[str, str] | None = None
    for path, arns, rule in role_lists:
        for j, arn in enumerate(arns):
            partition, _, role_account = _arn_parts(arn)
            where = f"{path}[{j}]"
            if account is not None and role_account != account:
                yield Problem(
                    where,
                    f"the role is in account {role_account}, the platform deploys to {account}",
                    f"list roles of account {account} ({rule.why}); grant other accounts through a role there",
                    "arn_account",
                )
            elif account is None:
                if first_seen is None:
                    first_seen = (where, role_account)
                elif role_account != first_seen[1]:
                    yield Problem(
                        where,
                        f"the role is in account {role_account}, {first_seen[0]} in {first_seen[1]}",
                        f"list roles of the one deploy account only ({rule.why}), or set account:",
                        "arn_account",
                    )
            yield from _partition(where, partition, region, "iam:")


def _partition(path: str, partition: str, region: str | None, service: str) -> Iterator[Problem]:
    if region is not None and partition != limits.partition_of(region):
        expected = limits.partition_of(region)
        yield Problem(
            path, f"partition {partition} does not match {region}", f"use arn:{expected}:{service}...", "arn_region"
        )


# --- S3 bucket names -----------------------------------------------------------------------------------


def _s3_uris(config: PlatformConfig) -> Iterator[tuple[str, str]]:
    for i, e in enumerate(config.endpoints):
        path = f"endpoints[{i}]"
        if e.model.s3_uri:
            yield f"{path}.model.s3_uri", e.model.s3_uri
        if e.async_ and e.async_.output_s3_uri:
            yield f"{path}.async.output_s3_uri", e.async_.output_s3_uri
        if e.multi_model:
            yield f"{path}.multi_model.model_data_prefix", e.multi_model.model_data_prefix
        if e.data_capture.s3_uri:
            yield f"{path}.data_capture.s3_uri", e.data_capture.s3_uri


def _buckets(config: PlatformConfig) -> Iterator[Problem]:
    for path, uri in _s3_uris(config):
        bucket = uri.removeprefix("s3://").split("/", 1)[0]
        broken = limits.broken_bucket_rules(bucket)
        if broken:
            yield Problem(
                path,
                f"bucket {bucket!r} is a name S3 never allows",
                f"bucket names need {'; '.join(broken)}",
                "s3_bucket",
            )


# --- duplicates and construct ids ------------------------------------------------------------------------


def _repeated(path: str, items: Sequence[str], what: str) -> Iterator[Problem]:
    seen: set[str] = set()
    for j, item in enumerate(items):
        if item in seen:
            yield Problem(f"{path}[{j}]", f"{item} is listed twice", f"list each {what} once", "duplicate")
        seen.add(item)


def _duplicates(config: PlatformConfig) -> Iterator[Problem]:
    for i, e in enumerate(config.endpoints):
        yield from _repeated(f"endpoints[{i}].vpc.subnet_ids", e.vpc.subnet_ids, "subnet")
        yield from _repeated(f"endpoints[{i}].vpc.security_group_ids", e.vpc.security_group_ids, "security group")
        yield from _repeated(f"endpoints[{i}].scaling.schedule", [f.cron for f in e.scaling.schedule], "cron")
    for i, p in enumerate(config.bedrock.profiles):
        yield from _repeated(f"bedrock.profiles[{i}].invoke_role_arns", p.invoke_role_arns, "role")
    for i, r in enumerate(config.bedrock.routers):
        yield from _repeated(f"bedrock.routers[{i}].invoke_role_arns", r.invoke_role_arns, "role")
    yield from _repeated("observability.source_account_ids", config.observability.source_account_ids, "account")
    yield from _repeated("cost.budget.deny_role_arns", config.cost.budget.deny_role_arns, "role")
    yield from _repeated("cost.activate_cost_allocation_tags", config.cost.activate_cost_allocation_tags, "tag key")


def _construct_ids(config: PlatformConfig) -> Iterator[Problem]:
    """Names map to construct ids that never collide (see :func:`construct_id`); this is the backstop that
    names the key path should two distinct names ever meet."""
    # (key path, construct id) of every construct one scope derives from a name
    alarm_ids = [
        (f"endpoints[{j}].name", construct_id(f"{config.name}-{e.name}")) for j, e in enumerate(config.endpoints)
    ]
    bedrock_ids = [(f"bedrock.profiles[{j}].name", p.name) for j, p in enumerate(config.bedrock.profiles)]
    bedrock_ids += [(f"bedrock.routers[{j}].name", f"Router{r.name}") for j, r in enumerate(config.bedrock.routers)]
    profile_alarm_ids = [
        (f"bedrock.profiles[{j}].name", construct_id(p.name)) for j, p in enumerate(config.bedrock.profiles)
    ]
    for group in (alarm_ids, bedrock_ids, profile_alarm_ids):
        first: dict[str, str] = {}
        for path, cid in group:
            other = first.setdefault(cid, path)
            if other != path:
                yield Problem(
                    path, f"gives construct id {cid!r}, as {other} does", "rename one of them", "id_collision"
                )
