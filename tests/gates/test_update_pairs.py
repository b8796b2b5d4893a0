"""Before/after pairs of the config changes platform teams make every week, each synthesized and checked by an
oracle that knows nothing of the library's model (``update_oracle``: the resource schemas cfn-lint bundles, the
two template sets, and the pinned CDK CLI's ``cdk diff --template``).

Nine small configs are synthesized once per session (without the compliance gates, which ``test_gates`` runs),
each only when a test first needs it. A change of instance type on a variant Application Auto Scaling owns
is a two-deploy change (release the scaling, then change the host with the scaling back): the one-step pair
is shown to break rule d, and each of the two steps to pass every rule.
"""

from __future__ import annotations

import copy
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from inference_constructs.updates import UPDATE_WARNING_CODES, update_warnings
from tests.gates import update_oracle as oracle
from tests.gates.synth import Assembly, synth_templates

BASE: dict[str, Any] = {
    "name": "pairs",
    "tags": {"team": "ml-platform"},
    "endpoints": [
        {
            "name": "chat",
            "type": "realtime",
            "stack": 1,
            "model": {
                "source": "huggingface",
                "id": "meta-llama/Llama-3.1-8B-Instruct",
                "revision": "0e9e39f249a16976918f6564b8830bc894c89659",
                "hf_token": {"secret": "pairs/hf-token"},
                "parameters_billion": 8,
                "dtype": "bf16",
                "max_context_tokens": 8192,
                "max_concurrent_sequences": 16,
                "architecture": {"layers": 32, "kv_heads": 8, "head_dim": 128},
            },
            "serving": "lmi",
            "accelerator": "gpu",
            "capacity": {"min": 1, "max": 4},
            "scaling": {"concurrency_per_instance": 12},
            "deployment": {"strategy": "canary", "rollback_on_alarms": True},
        },
        {
            "name": "tenant-risk",
            "type": "multi-model",
            "stack": 2,
            "model": {"source": "s3", "id": "tenant-risk"},
            "serving": "xgboost",
            "capacity": {"min": 1, "max": 3},
            "scaling": {"invocations_per_instance_per_minute": 1500},
            "multi_model": {"model_data_prefix": "s3://acme-ml-artifacts/tenant-risk/", "cache": True},
        },
    ],
    "bedrock": {
        "profiles": [
            {
                "name": "team-a-sonnet",
                "model": "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
                "tags": {"team": "team-a"},
            },
            {
                "name": "team-b-haiku",
                "model": "anthropic.claude-3-haiku-20240307-v1:0",
                "tags": {"team": "team-b"},
                "residency": "single-region",
            },
        ]
    },
    "observability": {"dashboard": True, "alarm_email": "oncall@example.com"},
    "cost": {"activate_cost_allocation_tags": ["team"]},
}


def _endpoint(config: dict[str, Any], name: str) -> dict[str, Any]:
    return next(e for e in config["endpoints"] if e["name"] == name)


def _bump(c: dict[str, Any]) -> None:
    c["bedrock"]["profiles"][0]["model"] = "us.anthropic.claude-3-7-sonnet-20250219-v1:0"


def _release(c: dict[str, Any]) -> None:
    # step 1 of an instance-type change: no scaling policies and a fixed count, so no scalable target
    for e in c["endpoints"]:
        e.pop("scaling")
        e["capacity"] = {"min": 1, "max": 1}


def _instance_type(c: dict[str, Any]) -> None:
    _endpoint(c, "tenant-risk")["instance_type"] = "ml.c5.xlarge"


def _longer_context(c: dict[str, Any]) -> None:
    _endpoint(c, "chat")["model"]["max_context_tokens"] = 32768


def _capacity(c: dict[str, Any]) -> None:
    _endpoint(c, "chat")["capacity"] = {"min": 2, "max": 6}
    _endpoint(c, "tenant-risk")["capacity"] = {"min": 1, "max": 5}


def _add(c: dict[str, Any]) -> None:
    # inserted first, into the stack of chat: the others keep their stack and everything else
    endpoint = {
        "name": "churn",
        "type": "serverless",
        "stack": 1,
        "model": {"source": "s3", "id": "churn", "s3_uri": "s3://acme-ml-artifacts/churn/model.tar.gz"},
        "serving": "sklearn",
        "serverless": {"memory_mb": 2048, "max_concurrency": 20},
    }
    c["endpoints"].insert(0, endpoint)


def _reorder(c: dict[str, Any]) -> None:
    c["endpoints"].reverse()
    c["bedrock"]["profiles"].reverse()


def _tags(c: dict[str, Any]) -> None:
    c["tags"]["team"] = "ml-infra"
    c["tags"]["cost-center"] = "4711"
    c["bedrock"]["profiles"][1]["tags"]["team"] = "team-z"


CHANGES: dict[str, Callable[[dict[str, Any]], None]] = {
    "base": lambda c: None,
    "model-bump": _bump,
    "released": _release,
    "instance-type": _instance_type,
    "longer-context": _longer_context,
    "capacity": _capacity,
    "added": _add,
    "reordered": _reorder,
    "tags": _tags,
}

#: (name, before, after): the common changes, as CloudFormation would receive them one deploy at a time.
PAIRS = [
    ("profile model bump", "base", "model-bump"),
    ("instance-type change, step 1: release the scaling", "base", "released"),
    ("instance-type change, step 2: new host, scaling back", "released", "instance-type"),
    ("longer context (new host), step 2", "released", "longer-context"),
    ("capacity change", "base", "capacity"),
    ("endpoint added", "base", "added"),
    ("endpoint removed", "added", "base"),
    ("endpoints and profiles reordered", "base", "reordered"),
    ("tag change", "base", "tags"),
]


class _Synths:
    """Each config of :data:`CHANGES` synthesized at most once per session."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._done: dict[str, Assembly] = {}

    def __getitem__(self, key: str) -> Assembly:
        if key not in self._done:
            config = copy.deepcopy(BASE)
            CHANGES[key](config)
            path = self._root / f"{key}.yaml"
            path.write_text(yaml.safe_dump(config, sort_keys=False))
            self._done[key] = synth_templates(path, self._root / key)
        return self._done[key]


@pytest.fixture(scope="module")
def synths(tmp_path_factory: pytest.TempPathFactory) -> _Synths:
    return _Synths(tmp_path_factory.mktemp("pairs"))


def _changed_stacks(synths: _Synths, before: str, after: str) -> list[str]:
    old, new = synths[before].templates, synths[after].templates
    return [s for s in sorted(old.keys() & new.keys()) if old[s] != new[s]]


@pytest.fixture(scope="module")
def pair_diffs(synths: _Synths) -> dict[tuple[str, str, str], str]:
    """The pinned CDK CLI's ``cdk diff`` of every changed stack of every pair, by (before, after, stack), run
    in one CLI process (:func:`oracle.cdk_diffs`)."""
    keys = [(b, a, s) for _, b, a in PAIRS for s in _changed_stacks(synths, b, a)]
    jobs = [(synths[a].outdir, s, synths[b].outdir / f"{s}.template.json") for b, a, s in keys]
    return dict(zip(keys, oracle.cdk_diffs(jobs), strict=True))


@pytest.mark.parametrize(("name", "before", "after"), PAIRS, ids=[p[0] for p in PAIRS])
def test_pair_is_an_update_cloudformation_can_apply(
    synths: _Synths, pair_diffs: dict[tuple[str, str, str], str], name: str, before: str, after: str
) -> None:
    # GIVEN the templates before and after the change
    old, new = synths[before].templates, synths[after].templates
    assert old != new
    # THEN no rule of the oracle is broken (rules a-d)
    assert oracle.violations(old, new) == []
    # AND the pinned CDK CLI's own diff replaces no resource under a kept name (rule e), per changed stack
    for stack in _changed_stacks(synths, before, after):
        output = pair_diffs[before, after, stack]
        assert f"Stack {stack}" in output
        assert oracle.cdk_diff_violations(stack, output, old, new) == []


def test_reordering_endpoints_and_profiles_changes_only_the_dashboard_order(synths: _Synths) -> None:
    # Stack placement comes from each endpoint's own stack key and construct ids from names, so reordering the
    # config keeps every resource; only the dashboard's widget order follows the config (an in-place update)
    base, reordered = synths["base"].templates, synths["reordered"].templates
    assert {s: set(t["Resources"]) for s, t in base.items()} == {s: set(t["Resources"]) for s, t in reordered.items()}
    changed = {
        r["Type"] for s, t in base.items() for k, r in t["Resources"].items() if r != reordered[s]["Resources"][k]
    }
    assert changed == {"AWS::CloudWatch::Dashboard"}


@pytest.mark.parametrize("after", ["instance-type", "longer-context"])
def test_one_step_host_change_of_a_scaled_variant_breaks_rule_d_and_is_announced(synths: _Synths, after: str) -> None:
    # GIVEN a change that moves a scaled endpoint to another instance type in one deploy
    base, new = synths["base"], synths[after]
    # THEN the oracle finds the instance-type change on the registered variant (SageMaker refuses it)
    found = oracle.scaled_variant_violations(base.templates, new.templates)
    assert len(found) == 1 and "changes the instance type of variant AllTraffic" in found[0]
    # AND comparing the two plans announces it with its code, naming the endpoint and both hosts
    warnings = update_warnings(base.plan, new.plan)
    (warning,) = [w for w in warnings if w.code == "scaled-variant-instance-type"]
    assert warning.subject in {"chat", "tenant-risk"} and "two deploys" in warning.message
    assert "scaled-variant-instance-type" in UPDATE_WARNING_CODES


def test_model_bump_replaces_the_profile_under_a_new_name_and_updates_the_handoff(synths: _Synths) -> None:
    old, new = synths["base"].templates["pairs-bedrock"], synths["model-bump"].templates["pairs-bedrock"]
    names = {
        t: {k: r["Properties"]["InferenceProfileName"] for k, r in tpl["Resources"].items() if "Profile" in r["Type"]}
        for t, tpl in (("old", old), ("new", new))
    }
    changed = [k for k in names["old"] if names["old"][k] != names["new"][k]]
    assert len(changed) == 1 and names["new"][changed[0]].startswith("team-a-sonnet-")
    # the profile id reaches the observability stack through a parameter, never an import
    assert "Fn::ImportValue" not in str(synths["model-bump"].templates)
    warnings = update_warnings(synths["base"].plan, synths["model-bump"].plan)
    assert [w.code for w in warnings] == ["profile-replaced"]


def test_oracle_rule_a_catches_a_replacement_under_the_same_name(synths: _Synths) -> None:
    # GIVEN the model bump with the name put back to the old one (what the library did before)
    old = synths["base"].templates
    new = copy.deepcopy(synths["model-bump"].templates)
    for logical_id, r in new["pairs-bedrock"]["Resources"].items():
        if r["Type"] == "AWS::Bedrock::ApplicationInferenceProfile":
            r["Properties"]["InferenceProfileName"] = old["pairs-bedrock"]["Resources"][logical_id]["Properties"][
                "InferenceProfileName"
            ]
    # THEN rule a reports it
    (found,) = oracle.custom_name_violations(old, new)
    assert "is replaced (ModelSource changed) under the same InferenceProfileName" in found


def test_oracle_rule_b_catches_an_export_in_use_that_changes() -> None:
    # GIVEN an exporter whose exported resource is replaced while another stack imports it
    profile = {"Type": "AWS::Bedrock::ApplicationInferenceProfile", "Properties": {"ModelSource": {"CopyFrom": "a"}}}
    exporter = {
        "Resources": {"P": profile},
        "Outputs": {"Id": {"Value": {"Fn::GetAtt": ["P", "InferenceProfileId"]}, "Export": {"Name": "x:Id"}}},
    }
    importer = {
        "Resources": {"A": {"Type": "AWS::CloudWatch::Alarm", "Properties": {"X": {"Fn::ImportValue": "x:Id"}}}}
    }
    bumped = copy.deepcopy(exporter)
    bumped["Resources"]["P"]["Properties"]["ModelSource"]["CopyFrom"] = "b"
    dropped = {"Resources": {"P": profile}}
    # THEN rule b reports both the replacement behind the export and a dropped export
    assert oracle.export_violations({"x": exporter, "y": importer}, {"x": bumped, "y": importer}) == [
        "b: x replaces the resource behind export x:Id, which another stack imports"
    ]
    assert oracle.export_violations({"x": exporter, "y": importer}, {"x": dropped, "y": {}}) == [
        "b: x drops export x:Id, which another stack imports"
    ]


def test_oracle_rule_c_catches_an_endpoint_that_moves_stack(synths: _Synths) -> None:
    base = synths["base"].templates
    moved = {k: copy.deepcopy(v) for k, v in base.items()}
    # GIVEN the chat endpoint's resources moved into the other hosting stack
    chat = {k: r for k, r in moved["pairs-hosting-1"]["Resources"].items() if k.startswith("chat")}
    moved["pairs-hosting-2"]["Resources"].update(chat)
    for k in chat:
        del moved["pairs-hosting-1"]["Resources"][k]
    assert oracle.stack_move_violations(base, moved) == [
        "c: endpoint pairs-chat moves from pairs-hosting-1 to pairs-hosting-2"
    ]


def test_cdk_diff_reports_the_profile_replacement(pair_diffs: dict[tuple[str, str, str], str]) -> None:
    # The CLI's own model agrees that a model bump replaces the profile (and the oracle's rule e reads it)
    replaced = oracle.cdk_replacements(pair_diffs["base", "model-bump", "pairs-bedrock"])
    assert [t for t, _ in replaced] == ["AWS::Bedrock::ApplicationInferenceProfile"]


def test_a_diff_job_prints_what_the_same_cdk_command_prints_alone(
    synths: _Synths, pair_diffs: dict[tuple[str, str, str], str]
) -> None:
    # GIVEN the pinned CLI run on its own, as a user runs it, on one stack of one pair
    before, after, stack = "base", "tags", "pairs-hosting-1"
    template = synths[before].outdir / f"{stack}.template.json"
    args = ["diff", "--app", str(synths[after].outdir), "--template", str(template), stack]
    alone = subprocess.run(
        [str(oracle.CDK), *args, "--exclusively", "--no-notices"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
        cwd=synths[after].outdir,
        env={**{k: v for k, v in os.environ.items() if not k.startswith("AWS_")}, "FORCE_COLOR": "0"},
    )
    # THEN its output is the job's, byte for byte (the jobs share one Node process and nothing else)
    assert alone.stdout + alone.stderr == pair_diffs[before, after, stack]
    assert "[~] AWS::IAM::Role" in alone.stderr + alone.stdout
