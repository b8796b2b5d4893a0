"""The Control Tower rule selection changes nothing: cfn-guard, run as the plugin runs it, on the full bundled set
and on the selected files.

For every template of every config, the full run (every bundled rule file but the disabled ones, in the
plugin's order, in one cfn-guard process over all the templates) and the reduced runs (what the selection runs
for that config: each selected file on the templates it can report on, cut down to what it can read, by
:func:`~inference_constructs.compliance.guard_runs`) must give equal ``not_compliant`` results, entry for entry
and in order (the plugin turns exactly these into findings, and their messages quote lines and columns); and
cfn-guard's own report of the full run must show every rule the selection left out as not applicable (skipped)
on that template: a rule left out could not have passed or failed either.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from inference_constructs.compliance import (
    GUARD_DISABLED_RULES,
    guard_rule_files,
    guard_runs,
    select_guard_rule_files,
)
from inference_constructs.guard_plugin import plugin_directory


def guard_binary() -> Path:
    """The cfn-guard binary the installed plugin bundles for this machine, as the library extracted it."""
    import platform

    arch = {"x86_64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}[platform.machine()]
    system = {"Linux": "ubuntu", "Darwin": "macos"}[platform.system()]
    return plugin_directory() / "package" / "bin" / system / arch / "cfn-guard"


def run_guard(binary: Path, rules: Sequence[Path], data: Sequence[Path]) -> list[dict[str, Any]]:
    """cfn-guard's structured report, one entry per data file in order, with the plugin's flags."""
    cmd = [str(binary), "validate", *[a for r in rules for a in ("--rules", str(r))]]
    cmd += [a for d in data for a in ("--data", str(d))]
    cmd += ["--output-format", "json", "--show-summary", "none", "--structured"]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 19):  # 19: some rule failed
        raise RuntimeError(f"cfn-guard exited {done.returncode}: {done.stderr[-2000:]}")
    report = json.loads(done.stdout)
    assert isinstance(report, list) and len(report) == len(data), done.stdout[:500]
    return report


def _not_compliant(entry: Mapping[str, Any]) -> list[Any]:
    found = entry.get("not_compliant") or []
    return list(found.values()) if isinstance(found, dict) else list(found)


def _named(entries: Sequence[Any]) -> set[str]:
    return {e["Rule"]["name"] if isinstance(e, dict) and "Rule" in e else str(e) for e in entries}


def compare(configs: Mapping[str, Sequence[Path]], workdir: Path) -> tuple[list[str], dict[str, int], int]:
    """(every difference between the reduced and the full rule set, rule files each config runs, failed rules
    the full set reports in all) for ``configs`` (config name -> its template files, as one synth validates
    them); identical templates are run once on the full side."""
    binary = guard_binary()
    off = set(GUARD_DISABLED_RULES)
    full_files = [f.path for f in guard_rule_files() if f.name not in off]
    files_of: dict[str, set[str]] = {}
    for f in guard_rule_files():
        for r in f.rules:
            files_of.setdefault(r, set()).add(f.name)
    unique: dict[str, Path] = {}
    for paths in configs.values():
        for p in paths:
            unique.setdefault(hashlib.sha256(p.read_bytes()).hexdigest(), p)
    full = dict(zip(unique, run_guard(binary, full_files, list(unique.values())), strict=True))
    problems: list[str] = []
    counts: dict[str, int] = {}
    findings = 0
    for n, (config, paths) in enumerate(configs.items()):
        texts = [p.read_text(encoding="utf-8") for p in paths]
        templates = [json.loads(t) for t in texts]
        selected = select_guard_rule_files(templates)
        counts[config] = len(selected)
        chosen = {f.name for f in selected}
        work = workdir / f"reduced-{n}"
        work.mkdir()
        order = {f.name: k for k, f in enumerate(selected)}
        ranked: list[list[tuple[int, Any]]] = [[] for _ in paths]
        for rule_files, data in guard_runs(selected, [str(p) for p in paths], texts, templates, work):
            file_of = {r: order[f.name] for f in rule_files for r in f.rules}
            report = run_guard(binary, [f.path for f in rule_files], [Path(d) for d, _ in data])
            for (_, index), entry in zip(data, report, strict=True):
                ranked[index] += [(file_of[next(iter(_named([e])))], e) for e in _not_compliant(entry)]
        reduced = [[e for _, e in sorted(found, key=lambda item: item[0])] for found in ranked]
        for path, small in zip(paths, reduced, strict=True):
            big = full[hashlib.sha256(path.read_bytes()).hexdigest()]
            where = f"{config}/{path.name}"
            if _not_compliant(big) != small:
                problems.append(
                    f"{where}: findings differ: full {_named(_not_compliant(big))}, reduced {_named(small)}"
                    + ("" if _named(_not_compliant(big)) != _named(small) else " (same rules: order or content)")
                )
            ran = set(big.get("compliant") or []) | _named(_not_compliant(big))
            findings += len(_not_compliant(big))
            for rule in sorted(ran):
                if not files_of.get(rule, set()) & chosen:
                    problems.append(f"{where}: {rule} was evaluated on the full set but is not selected")
    return problems, counts, findings
