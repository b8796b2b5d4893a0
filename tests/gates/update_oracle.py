"""An oracle for "CloudFormation can apply this update", independent of the library's own model: it reads
only two sets of synthesized templates (before and after a config change), the CloudFormation resource schemas
cfn-lint bundles, and (rule e) the pinned CDK CLI's ``cdk diff --template``.

Rules (each violation is one line naming the stack, resource and why):

a. No replacement of a custom-named resource under the same name. A resource is replaced when a create-only
   property (resource schema ``createOnlyProperties``) changes; if one of its create-only ``...Name`` properties
   is set, it must change too ("CloudFormation cannot update a stack when a custom-named resource requires
   replacing", CloudFormation template reference, "CloudFormation resource custom naming"). Likewise a new
   resource may not take a name a deleted one still holds (CloudFormation creates before it deletes).
b. No export in use changes: every export of a "before" stack that another "before" stack imports keeps its
   value in "after" ("After another stack imports an output value, you can't delete the stack that is exporting
   the output value or modify the exported output value", ``Fn::ImportValue``).
c. No endpoint moves stack: an ``AWS::SageMaker::EndpointName`` present before and after is in the same stack
   (a move creates it in one stack while the other still holds the name).
d. No instance-type change, and no removal, of a production variant registered with Application Auto Scaling
   in "before": SageMaker refuses UpdateEndpoint for either until the variant is deregistered (SageMaker
   developer guide, "Update endpoints that use auto scaling").
e. ``cdk diff --template <before>`` of the CDK CLI the repo pins: every resource it reports as replaced either
   has no create-only name set or gets a new one.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from tests.cfn_schemas import create_only, name_properties, property_at
from tests.gates.synth import ROOT

Templates = Mapping[str, Mapping[str, Any]]
CDK = ROOT / "node_modules" / ".bin" / "cdk"


def _resources(templates: Templates) -> Iterator[tuple[str, str, Mapping[str, Any]]]:
    for stack, template in templates.items():
        for logical_id, resource in template.get("Resources", {}).items():
            yield stack, logical_id, resource


def _dump(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def replaced_properties(resource_type: str, before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """The create-only properties whose value differs (empty: CloudFormation updates in place)."""
    return [
        "/".join(path)
        for path in create_only(resource_type)
        if _dump(property_at(dict(before), path)) != _dump(property_at(dict(after), path))
    ]


def _names(resource_type: str, properties: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(property path, value)`` of every create-only name set on a resource."""
    return [
        ("/".join(path), _dump(value))
        for path in name_properties(resource_type)
        if (value := property_at(dict(properties), path)) is not None
    ]


def custom_name_violations(before: Templates, after: Templates) -> list[str]:
    """Rule a."""
    found: list[str] = []
    old = {(s, lid): r for s, lid, r in _resources(before)}
    new = {(s, lid): r for s, lid, r in _resources(after)}
    for key in old.keys() & new.keys():
        o, n = old[key], new[key]
        if o["Type"] != n["Type"]:
            continue
        changed = replaced_properties(o["Type"], o.get("Properties", {}), n.get("Properties", {}))
        if not changed:
            continue
        for path, value in _names(o["Type"], o.get("Properties", {})):
            if value in {v for p, v in _names(n["Type"], n.get("Properties", {})) if p == path}:
                found.append(
                    f"a: {key[0]}/{key[1]} ({o['Type']}) is replaced ({', '.join(changed)} changed) under the "
                    f"same {path} {value}"
                )
    gone = {
        (r["Type"], p, v): key
        for key, r in old.items()
        if key not in new
        for p, v in _names(r["Type"], r.get("Properties", {}))
    }
    for key, r in new.items():
        if key in old:
            continue
        for p, v in _names(r["Type"], r.get("Properties", {})):
            if (r["Type"], p, v) in gone:
                was = gone[(r["Type"], p, v)]
                found.append(f"a: {key[0]}/{key[1]} takes {p} {v} that {was[0]}/{was[1]} still holds")
    return found


def _imports(template: Mapping[str, Any]) -> set[str]:
    text = _dump(template)
    return set(re.findall(r'"Fn::ImportValue": "([^"]+)"', text))


def export_violations(before: Templates, after: Templates) -> list[str]:
    """Rule b."""
    found: list[str] = []
    for stack, template in before.items():
        exports = {o["Export"]["Name"]: o["Value"] for o in template.get("Outputs", {}).values() if "Export" in o}
        used = {name for other, t in before.items() if other != stack for name in _imports(t)} & exports.keys()
        after_exports = {
            o["Export"]["Name"]: o["Value"] for o in after.get(stack, {}).get("Outputs", {}).values() if "Export" in o
        }
        for name in sorted(used):
            if name not in after_exports:
                found.append(f"b: {stack} drops export {name}, which another stack imports")
            elif _dump(after_exports[name]) != _dump(exports[name]):
                found.append(f"b: {stack} changes export {name}, which another stack imports")
            elif _changes_behind(template, after[stack], exports[name]):
                found.append(f"b: {stack} replaces the resource behind export {name}, which another stack imports")
    return found


def _changes_behind(before: Mapping[str, Any], after: Mapping[str, Any], value: Any) -> bool:
    """True when the resource an exported Ref/GetAtt points at is replaced (its value changes)."""
    target = value.get("Ref") if isinstance(value, dict) else None
    if isinstance(value, dict) and "Fn::GetAtt" in value:
        target = value["Fn::GetAtt"][0]
    o, n = before.get("Resources", {}).get(target), after.get("Resources", {}).get(target)
    if o is None or n is None or o["Type"] != n["Type"]:
        return o is not None
    return bool(replaced_properties(o["Type"], o.get("Properties", {}), n.get("Properties", {})))


def _endpoints(templates: Templates) -> dict[str, tuple[str, Mapping[str, Any]]]:
    """Literal endpoint name -> (stack, template)."""
    out: dict[str, tuple[str, Mapping[str, Any]]] = {}
    for stack, _lid, r in _resources(templates):
        if r["Type"] == "AWS::SageMaker::Endpoint" and isinstance(r["Properties"].get("EndpointName"), str):
            out[r["Properties"]["EndpointName"]] = (stack, templates[stack])
    return out


def stack_move_violations(before: Templates, after: Templates) -> list[str]:
    """Rule c."""
    old, new = _endpoints(before), _endpoints(after)
    return [
        f"c: endpoint {name} moves from {old[name][0]} to {new[name][0]}"
        for name in sorted(old.keys() & new.keys())
        if old[name][0] != new[name][0]
    ]


def _variants(template: Mapping[str, Any], endpoint_name: str) -> dict[str, str | None]:
    """Variant name -> instance type of the endpoint config ``endpoint_name`` uses in ``template``."""
    resources = template.get("Resources", {})
    for r in resources.values():
        if r["Type"] == "AWS::SageMaker::Endpoint" and r["Properties"].get("EndpointName") == endpoint_name:
            ref = r["Properties"]["EndpointConfigName"]
            config_id = ref["Fn::GetAtt"][0] if "Fn::GetAtt" in ref else ref.get("Ref")
            variants = resources[config_id]["Properties"]["ProductionVariants"]
            return {v["VariantName"]: v.get("InstanceType") for v in variants}
    return {}


def registered_variants(templates: Templates) -> list[tuple[str, str]]:
    """``(endpoint name, variant name)`` of every variant a ScalableTarget registers."""
    out = []
    for _stack, _lid, r in _resources(templates):
        if r["Type"] == "AWS::ApplicationAutoScaling::ScalableTarget":
            m = re.fullmatch(r"endpoint/([^/]+)/variant/([^/]+)", str(r["Properties"].get("ResourceId")))
            if m:
                out.append((m.group(1), m.group(2)))
    return out


def scaled_variant_violations(before: Templates, after: Templates) -> list[str]:
    """Rule d."""
    found: list[str] = []
    old, new = _endpoints(before), _endpoints(after)
    for endpoint, variant in registered_variants(before):
        if endpoint not in old or endpoint not in new:
            continue  # deleting the endpoint deregisters its variants (SageMaker guide, "Delete endpoints ...")
        was = _variants(old[endpoint][1], endpoint)
        now = _variants(new[endpoint][1], endpoint)
        if variant not in now:
            found.append(f"d: {endpoint} removes variant {variant}, registered with Application Auto Scaling")
        elif now[variant] != was.get(variant):
            found.append(
                f"d: {endpoint} changes the instance type of variant {variant} ({was.get(variant)} -> "
                f"{now[variant]}), registered with Application Auto Scaling"
            )
    return found


def violations(before: Templates, after: Templates) -> list[str]:
    """Rules a-d."""
    return (
        custom_name_violations(before, after)
        + export_violations(before, after)
        + stack_move_violations(before, after)
        + scaled_variant_violations(before, after)
    )


_REPLACED = re.compile(r"^\[~\] (\S+) (.+) (\S+) replace$")


#: The pinned CLI's bundle (what ``bin/cdk`` runs) and the driver that runs its entry point once per job.
CDK_CLI_LIB = ROOT / "node_modules" / "aws-cdk" / "lib" / "index.js"
CDK_JOBS = Path(__file__).with_name("cdk_cli_jobs.js")


def cdk_diffs(jobs: Sequence[tuple[Path, str, Path]], *, home: Path | None = None) -> list[str]:
    """``cdk diff --template`` of each job's ``(assembly, stack, before template)``: ``stack`` in the synthesized
    assembly against the template file. The CLI reads both from disk and asks AWS for nothing (no credentials
    are needed; every ``AWS_`` variable is left out). The jobs run one after another through the CLI's own entry
    point in one Node process (``cdk_cli_jobs.js``), each with the command line and working folder ``cdk diff``
    would have, so the 16 MB CLI is loaded once, not once per job; ``home`` is the CLI's home folder."""
    if not jobs:
        return []
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(CDK_DISABLE_CLI_TELEMETRY="true", FORCE_COLOR="0", AWS_EC2_METADATA_DISABLED="true")
    if home is not None:
        env["HOME"] = str(home)
    commands = [
        {
            "args": ["diff", "--app", str(a), "--template", str(t), stack, "--exclusively", "--no-notices"],
            "cwd": str(a),
        }
        for a, stack, t in jobs
    ]
    with tempfile.TemporaryDirectory(prefix="cdk-diff-jobs-") as work:
        listed = Path(work) / "jobs.json"
        listed.write_text(json.dumps(commands), encoding="utf-8")
        result = subprocess.run(
            ["node", str(CDK_JOBS), str(CDK_CLI_LIB), str(listed)],
            capture_output=True,
            text=True,
            timeout=300 + 60 * len(jobs),
            check=False,
            env=env,
        )
    if result.returncode != 0:
        raise RuntimeError(f"the cdk diff jobs failed ({result.returncode}): {result.stderr[-2000:]}")
    outputs: list[dict[str, Any]] = json.loads(result.stdout)
    for (_, stack, _), run in zip(jobs, outputs, strict=True):
        if run["code"] not in (0, 1):
            raise RuntimeError(f"cdk diff of {stack} failed ({run['code']}): {run['output'][-2000:]}")
    return [str(run["output"]) for run in outputs]


def cdk_diff(assembly: Path, stack: str, before_template: Path) -> str:
    """``cdk diff --template`` of ``stack`` in ``assembly`` against ``before_template`` (:func:`cdk_diffs`)."""
    (output,) = cdk_diffs([(assembly, stack, before_template)])
    return output


def cdk_replacements(diff_output: str) -> list[tuple[str, str]]:
    """``(resource type, logical id)`` of every resource ``cdk diff`` reports as replaced."""
    return [(m.group(1), m.group(3)) for line in diff_output.splitlines() if (m := _REPLACED.match(line.strip()))]


def cdk_diff_violations(stack: str, diff_output: str, before: Templates, after: Templates) -> list[str]:
    """Rule e: a resource ``cdk diff`` replaces keeps no create-only name."""
    found = []
    for resource_type, logical_id in cdk_replacements(diff_output):
        o = before[stack]["Resources"][logical_id]
        n = after[stack]["Resources"][logical_id]
        kept = set(_names(resource_type, o.get("Properties", {}))) & set(_names(resource_type, n.get("Properties", {})))
        if kept:
            found.append(f"e: cdk diff replaces {stack}/{logical_id} ({resource_type}) keeping {sorted(kept)}")
    return found
