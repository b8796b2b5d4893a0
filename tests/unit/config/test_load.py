"""Config loading: every problem in a file reported at once, with its key path (the docs/config.md contract)."""

from __future__ import annotations

from pathlib import Path

import pytest

from inference_constructs.config import load_config, parse_config, resolve_config_path
from inference_constructs.errors import InferenceConfigError
from inference_constructs.plan import plan_platform

CHAT = """
  - name: chat
    model: {id: org/chat-8b, parameters_billion: 8}
    serving: lmi
"""


def _problems(text: str) -> tuple[str, ...]:
    with pytest.raises(InferenceConfigError) as info:
        parse_config(text)
    return info.value.problems


def test_minimal_file_with_only_name_is_valid() -> None:
    # GIVEN a file with only the required key WHEN parsed THEN every block takes its documented default
    config = parse_config("name: acme\n")
    assert config.endpoints == []
    assert config.observability.anomaly_std_devs == 2
    assert config.cost.savings_plan.term_years == 1


def test_bedrock_only_file_is_valid() -> None:
    config = parse_config(
        "name: acme\nbedrock:\n  profiles:\n    - {name: team-a, model: anthropic.claude-3-haiku-20240307-v1:0}\n"
    )
    assert config.bedrock.profiles[0].name == "team-a"


@pytest.mark.parametrize(
    ("snippet", "expected"),
    [
        ("    type: realtme\n", "endpoints[0].type: 'realtme' is not allowed; use one of 'realtime', 'async'"),
        ("    capacity: {min: 1, max: -3}\n", "endpoints[0].capacity.max: -3 is not allowed; use 1..1000"),
        (
            "    type: serverless\n    serverless: {memory_mb: 7000}\n",
            "endpoints[0].serverless.memory_mb: 7000 is not allowed; use 1024..6144 in steps of 1024",
        ),
        ("    servng: lmi\n", "endpoints[0].servng: unknown key; did you mean 'serving'?"),
        ("    instance_type: g5.xlarge\n", "endpoints[0].instance_type: 'g5.xlarge' is not allowed; use auto or a"),
        ("    capacity: {min: many}\n", "endpoints[0].capacity.min: 'many' is not allowed; use a whole number"),
    ],
    ids=["enum", "range", "step", "unknown-key", "pattern", "type"],
)
def test_fails_with_key_path_value_and_fix(snippet: str, expected: str) -> None:
    # GIVEN one endpoint with one mistake WHEN parsed THEN the single problem names path, value and fix
    problems = _problems("name: acme\nendpoints:" + CHAT + snippet)
    assert len(problems) == 1
    assert problems[0].startswith(expected)


def test_fails_on_duplicate_endpoint_names() -> None:
    problems = _problems("name: acme\nendpoints:" + CHAT + CHAT)
    assert problems == ("endpoints[1].name: 'chat' is used more than once; endpoint names must be unique",)


def _plan_problems(text: str) -> tuple[str, ...]:
    """The problems of a file that loads, but that a decision refuses (the rule lives next to that decision)."""
    config = parse_config(text)
    with pytest.raises(InferenceConfigError) as info:
        plan_platform(config)
    return info.value.problems


def test_fails_on_min_greater_than_max() -> None:
    # GIVEN capacity min above max WHEN planned THEN the scaling rule refuses it at the config's key path
    problems = _plan_problems("name: acme\nendpoints:" + CHAT + "    capacity: {min: 3, max: 2}\n")
    assert problems == ("endpoints[0].capacity.min: 3 is greater than capacity.max 2; set min <= max",)
    assert problems[0].code == "conflict"  # type: ignore[attr-defined]


def test_fails_with_every_problem_at_once() -> None:
    # GIVEN a file with an unknown top-level key, a bad enum, a range error and a duplicate name
    text = (
        "name: acme\nobservabilty: {}\nendpoints:"
        + CHAT
        + "    type: batch\n"
        + CHAT
        + "    capacity: {max: 0}\n"
        + "cost: {savings_plan: {term_years: 2}}\n"
    )
    # WHEN parsed THEN one error lists all five, each with its key path
    problems = _problems(text)
    paths = sorted(p.split(":")[0] for p in problems)
    assert paths == [
        "cost.savings_plan.term_years",
        "endpoints[0].type",
        "endpoints[1].capacity.max",
        "endpoints[1].name",
        "observabilty",
    ]
    assert "did you mean 'observability'?" in next(p for p in problems if p.startswith("observabilty"))


def test_error_message_lists_every_problem_on_its_own_line() -> None:
    with pytest.raises(InferenceConfigError) as info:
        parse_config("name: A\nendpoints: [{name: x, tpye: realtime, model: {id: a/b}}]\n")
    message = str(info.value)
    assert message.splitlines()[0] == "invalid inference configuration (2 problems):"
    assert "  - name: 'A' is not allowed; use 2-20 characters" in message
    assert "  - endpoints[0].tpye: unknown key; did you mean 'type'?" in message


@pytest.mark.parametrize(
    ("snippet", "expected"),
    [
        (
            "    data_capture: {sampling_percent: 10}\n",
            "endpoints[0].data_capture.s3_uri: required when sampling_percent",
        ),
    ],
    ids=["capture"],
)
def test_fails_on_cross_field_rules(snippet: str, expected: str) -> None:
    problems = _problems("name: acme\nendpoints:" + CHAT + snippet)
    assert any(p.startswith(expected) for p in problems), problems


@pytest.mark.parametrize(
    ("snippet", "expected"),
    [
        (
            "    serverless: {memory_mb: 2048}\n",
            "endpoints[0].serverless: only applies to type: serverless, not realtime",
        ),
        (
            "    capacity: {min: 1, max: 2}\n    scaling: {schedule: [{cron: 'cron(0 7 ? * MON-FRI *)', min: 3}]}\n",
            "endpoints[0].scaling.schedule[0].min: 3 is greater than the maximum 2; use at most 2",
        ),
    ],
    ids=["kind-block", "floor-above-max"],
)
def test_rules_a_decision_guards_are_refused_by_the_plan_with_the_config_key_path(snippet: str, expected: str) -> None:
    # GIVEN a file that loads WHEN planned THEN the decision's own rule refuses it, as a conflict at the key path
    problems = _plan_problems("name: acme\nendpoints:" + CHAT + snippet)
    matching = [p for p in problems if p.startswith(expected)]
    assert matching, problems
    assert matching[0].code == "conflict"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "endpoints:\n  - {name: a, model: {id: o/m, s3_uri: 's3://my-bucket/m.tar.gz'}}\n",
            "endpoints[0].model.s3_uri: only used with model.source s3",
        ),
        (
            "endpoints:\n  - {name: a, type: serverless, serving: sklearn, capacity: {max: 3}, "
            "model: {source: s3, s3_uri: 's3://my-bucket/m.tar.gz'}}\n",
            "endpoints[0].capacity: serverless endpoints have no instances to count",
        ),
        (
            "endpoints:\n  - {name: a, type: multi-model, serving: xgboost, model: {source: s3, "
            "s3_uri: 's3://my-bucket/m.tar.gz'}, multi_model: {model_data_prefix: 's3://my-bucket/mm/'}}\n",
            "endpoints[0].model.s3_uri: multi-model endpoints load models from multi_model.model_data_prefix",
        ),
        (
            "observability: {dashboard: false, source_account_ids: ['111122223333']}\n",
            "observability.source_account_ids: only the dashboard searches other accounts",
        ),
        ("cost: {budget: {deny_new_endpoints_at_percent: 90}}\n", "cost.budget.deny_new_endpoints_at_percent: has no"),
        (
            "cost: {anomaly_monitor: {threshold_usd: 50}}\n",
            "cost.anomaly_monitor.threshold_usd: the monitor is created",
        ),
    ],
    ids=[
        "s3-uri-with-hf",
        "serverless-capacity",
        "multi-model-s3-uri",
        "accounts-no-dashboard",
        "deny-no-roles",
        "threshold",
    ],
)
def test_fails_on_a_key_that_would_be_silently_ignored(text: str, expected: str) -> None:
    # GIVEN a key whose setting nothing would use WHEN parsed THEN it is an error, never ignored
    problems = _problems("name: acme\n" + text)
    assert any(p.startswith(expected) for p in problems), problems


def test_fails_on_provisioned_above_max_concurrency() -> None:
    text = (
        "name: acme\nendpoints:\n  - {name: s, type: serverless, serving: sklearn, "
        "model: {source: s3, s3_uri: 's3://my-bucket/m.tar.gz'}, "
        "serverless: {max_concurrency: 2, provisioned_concurrency: 5}}\n"
    )
    assert _plan_problems(text) == (
        "endpoints[0].serverless.provisioned_concurrency: 5 is greater than serverless.max_concurrency 2; "
        "use at most 2 (serverless.max_concurrency)",
    )


def test_fails_on_malformed_s3_uri_with_a_readable_fix() -> None:
    text = "name: acme\nendpoints:\n  - {name: s, serving: sklearn, model: {source: s3, s3_uri: 's3://b/m.tar.gz'}}\n"
    assert _problems(text) == (
        "endpoints[0].model.s3_uri: 's3://b/m.tar.gz' is not allowed; use s3://bucket/key or s3://bucket/prefix/ "
        "(bucket names have 3-63 lowercase characters)",
    )


def test_fails_on_duplicate_yaml_keys() -> None:
    # GIVEN a key written twice (PyYAML would silently keep the last one)
    problems = _problems("name: acme\nname: other\n")
    assert problems == ("line 2: name: key appears more than once; keep one",)


def test_fails_on_invalid_yaml_with_line_number() -> None:
    problems = _problems("name: acme\nendpoints: [\n")
    assert len(problems) == 1
    assert problems[0].startswith("<config>: not valid YAML at line")


def test_fails_on_non_mapping_file() -> None:
    assert _problems("- a\n- b\n") == ("<config>: the file must be a mapping of keys, got list",)


def test_fails_on_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InferenceConfigError, match="cannot read the config file"):
        load_config(tmp_path / "absent.yaml")


def test_fails_on_missing_name() -> None:
    assert _problems("tags: {team: a}\n") == ("name: required key is missing; add it",)


def test_fails_on_reserved_tag_prefix() -> None:
    assert _problems("name: acme\ntags: {'aws:owner': me}\n") == (
        "tags.aws:owner: keys starting with aws: are reserved by AWS in any case "
        "(https://docs.aws.amazon.com/tag-editor/latest/userguide/tagging.html); choose another key",
    )


@pytest.mark.parametrize(
    ("context", "env", "expected"),
    [
        ("ctx.yaml", {"INFERENCE_CONFIG": "env.yaml"}, "ctx.yaml"),
        (None, {"INFERENCE_CONFIG": "env.yaml"}, "env.yaml"),
        (None, {}, "config/default.yaml"),
    ],
    ids=["context-wins", "env", "default"],
)
def test_config_path_resolution_order(context: str | None, env: dict[str, str], expected: str) -> None:
    assert resolve_config_path(context, environ=env) == Path(expected)
