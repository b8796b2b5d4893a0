"""Synthesize every shipped config (``config/default.yaml`` and ``config/examples/*.yaml``) into one folder each,
so that two versions of the library can be compared file for file.

    python scripts/snapshot.py OUTDIR        # OUTDIR/<config>/: templates, inference-plan.json, the plan table
    diff -r BEFORE AFTER                     # what a change did to plans and templates

The same synth as ``cdk synth`` (compliance gates on, the project's ``cdk.json`` context); the assembly's
manifest and tree are dropped (they name the CDK version and construct paths, not what is deployed).
"""

from __future__ import annotations

import io
import json
import sys
from contextlib import redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from aws_cdk import App  # noqa: E402

from inference_constructs.__main__ import main as cli  # noqa: E402
from inference_constructs.stacks.platform import synthesize  # noqa: E402

CONFIGS = [ROOT / "config" / "default.yaml", *sorted((ROOT / "config" / "examples").glob("*.yaml"))]
KEPT = ("*.template.json", "inference-plan.json")


def snapshot(outdir: Path) -> list[Path]:
    """Synthesize each config into ``outdir/<config stem>`` and return the folders."""
    context = json.loads((ROOT / "cdk.json").read_text(encoding="utf-8")).get("context", {})
    folders = []
    for config in CONFIGS:
        target = outdir / config.stem
        assembly = target / "cdk.out"
        synthesize(App(outdir=str(assembly), context=context), config)
        for pattern in KEPT:
            for f in sorted(assembly.glob(pattern)):
                (target / f.name).write_bytes(f.read_bytes())
        table = io.StringIO()
        with redirect_stdout(table):
            cli(["plan", str(config)])
        (target / "plan.txt").write_text(table.getvalue(), encoding="utf-8")
        for f in sorted(assembly.rglob("*"), reverse=True):
            f.unlink() if f.is_file() else f.rmdir()
        assembly.rmdir()
        folders.append(target)
    return folders


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for folder in snapshot(Path(sys.argv[1])):
        print(folder)
