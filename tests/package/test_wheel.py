"""The wheel: built from the checkout, installed into a clean venv outside the repository, and used
from separate CDK apps: one imports RealtimeEndpoint and a construct with a Lambda asset, one builds the
whole platform with InferencePlatform from a copy of the default config in its own folder. The load tester
is not in it: it is its own distribution (``loadtest/``), whose wheel carries its package and its command.

The wheels and the clean venv are the fixtures of conftest.py (offline).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import textwrap
import zipfile
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]

CONSUMER_APP = textwrap.dedent(
    """
    import json, sys
    from aws_cdk import App, Stack
    import inference_constructs
    from inference_constructs.hosting import RealtimeEndpoint
    from inference_constructs.cost import CostAllocationTagActivation
    from inference_constructs.spec import ModelSpec, Serving

    app = App()
    stack = Stack(app, "Consumer")
    endpoint = RealtimeEndpoint(
        stack, "Chat", model=ModelSpec(id="org/chat-3b", parameters_billion=3), serving=Serving.TGI
    )
    CostAllocationTagActivation(stack, "Tags", tag_keys=["team"])
    app.synth()
    print(json.dumps({"package": inference_constructs.__file__, "instance_type": endpoint.instance_type}))
    """
)


PLATFORM_APP = textwrap.dedent(
    """
    import json
    from aws_cdk import App, Stage
    import inference_constructs
    from inference_constructs import InferencePlatform

    app = App()
    platform = InferencePlatform(Stage(app, "Prod"), "Platform", config="platform.yaml")
    app.synth()
    stacks = {role: stack.stack_name for role, stack in platform.stacks.items()}
    print(json.dumps({"package": inference_constructs.__file__, "stacks": stacks}))
    """
)


def test_wheel_carries_the_data_files_and_the_lambda_assets(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "inference_constructs/py.typed" in names
    assert "inference_constructs/catalog/instances.json" in names
    assert "inference_constructs/containers/images.json" in names
    assert "inference_constructs/regions.json" in names
    assert "inference_constructs/diff/create_only.json" in names
    assert "inference_constructs/_lambda/cost_allocation_tags/cost_allocation_tags.py" in names
    assert "inference_constructs/_lambda/bedrock_invocation_logging/bedrock_invocation_logging.py" in names
    assert "inference_constructs/stacks/platform.py" in names
    assert not any(n.startswith(("tests/", "stacks/", "config/")) for n in names)


def _metadata(wheel: Path, name: str) -> str:
    with zipfile.ZipFile(wheel) as z:
        (path,) = [n for n in z.namelist() if n.endswith(f".dist-info/{name}")]
        return z.read(path).decode()


def test_wheel_leaves_the_load_tester_to_its_own_distribution(wheel: Path) -> None:
    # GIVEN the library's wheel WHEN its files and metadata are read
    names = set(zipfile.ZipFile(wheel).namelist())
    # THEN no module of the load tester is in it: only the deprecated alias re-exporting the tester's names
    assert [n for n in names if "loadtest" in n] == ["inference_constructs/loadtest.py"]
    assert not any(n.startswith("inference_loadtest") for n in names)
    alias = zipfile.ZipFile(wheel).read("inference_constructs/loadtest.py").decode()
    assert "from inference_loadtest import *" in alias
    # AND the loadtest extra requires the tester's distribution, with its chart extra
    requires = [line for line in _metadata(wheel, "METADATA").splitlines() if line.startswith("Requires-Dist:")]
    assert [r for r in requires if 'extra == "loadtest"' in r] == [
        'Requires-Dist: inference-loadtest[chart,quality]<0.2,>=0.1.0; extra == "loadtest"'
    ]


def test_the_load_tester_wheel_carries_its_package_and_command(loadtest_wheel: Path) -> None:
    # GIVEN the load tester's wheel WHEN its files and metadata are read
    names = set(zipfile.ZipFile(loadtest_wheel).namelist())
    # THEN it holds the package (the local server and its typing marker included) and nothing of the library
    package = {n for n in names if not n.startswith("inference_loadtest-")}
    assert {"inference_loadtest/__init__.py", "inference_loadtest/cli.py", "inference_loadtest/server.py"} <= package
    assert "inference_loadtest/py.typed" in package
    assert all(n.startswith("inference_loadtest/") for n in package)
    # AND the inference-loadtest command, and its requirements: the library, boto3, matplotlib for charts
    assert "inference-loadtest = inference_loadtest.cli:main" in _metadata(loadtest_wheel, "entry_points.txt")
    metadata = _metadata(loadtest_wheel, "METADATA")
    assert "Name: inference-loadtest" in metadata
    assert "Requires-Dist: inference-constructs<0.2,>=0.1.0" in metadata
    assert "Requires-Dist: boto3>=1.34" in metadata
    assert 'Requires-Dist: matplotlib<4,>=3.8; extra == "chart"' in metadata


@pytest.fixture(scope="module")
def venv(clean_python: Path) -> Path:
    """The clean venv of conftest.py (the wheel installed, dependencies linked, offline)."""
    return clean_python.parent.parent


def _run_app(venv: Path, app_dir: Path) -> dict[str, Any]:
    """Run ``app_dir/app.py`` with the clean venv's interpreter from its own folder; returns its last JSON line."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "INFERENCE_CONFIG")}
    env["CDK_OUTDIR"] = str(app_dir / "cdk.out")
    result = subprocess.run(
        [str(venv / "bin" / "python"), "app.py"],
        cwd=app_dir,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return dict(json.loads(result.stdout.strip().splitlines()[-1]))


def test_installed_wheel_synthesizes_in_a_separate_cdk_app(venv: Path, tmp_path: Path) -> None:
    # GIVEN the clean venv and a consumer app in its own folder
    app_dir = tmp_path / "consumer"
    app_dir.mkdir()
    (app_dir / "app.py").write_text(CONSUMER_APP)
    # WHEN the consumer app runs from its own folder
    info = _run_app(venv, app_dir)
    # THEN the library came from the clean venv, chose a host, and the Lambda asset was staged
    assert info["package"].startswith(str(venv))
    assert info["instance_type"].startswith("ml.")
    template = json.loads((app_dir / "cdk.out" / "Consumer.template.json").read_text())
    types = {r["Type"] for r in template["Resources"].values()}
    assert {"AWS::SageMaker::Endpoint", "AWS::Lambda::Function"} <= types
    staged = list((app_dir / "cdk.out").glob("asset.*/cost_allocation_tags.py"))
    assert staged, "the Lambda handler was not staged from the installed wheel"


def test_installed_wheel_builds_the_platform_from_a_config_in_another_folder(venv: Path, tmp_path: Path) -> None:
    # GIVEN an app of its own that embeds InferencePlatform in a Stage, and the default config copied beside it
    app_dir = tmp_path / "platform-app"
    app_dir.mkdir()
    (app_dir / "app.py").write_text(PLATFORM_APP)
    shutil.copy(ROOT / "config" / "default.yaml", app_dir / "platform.yaml")
    # WHEN it runs from its own folder with the clean venv (the compliance gates on)
    info = _run_app(venv, app_dir)
    # THEN the library came from the clean venv and built the default platform's stacks under their own names
    assert info["package"].startswith(str(venv))
    assert info["stacks"] == {
        "bedrock": "acme-genai-bedrock",
        "observability": "acme-genai-observability",
        "hosting-1": "acme-genai-hosting-1",
        "cost": "acme-genai-cost",
    }
    # AND the stage's assembly holds the four templates, the plan, and the staged Lambda assets
    nested = app_dir / "cdk.out" / "assembly-Prod"
    manifest = json.loads((nested / "manifest.json").read_text())
    names = sorted(
        a["properties"]["stackName"] for a in manifest["artifacts"].values() if "stackName" in a.get("properties", {})
    )
    assert names == sorted(info["stacks"].values())
    assert json.loads((nested / "inference-plan.json").read_text())["name"] == "acme-genai"
    assert list((app_dir / "cdk.out").glob("asset.*/cost_allocation_tags.py"))
