"""The wheel built from the checkout, and a clean venv outside the repository with it installed (offline)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _wheel_of(source: Path, out: Path, package: str) -> Path:
    """The ``package-*.whl`` pip builds from the folder ``source`` into ``out`` (no dependencies, no build isolation:
    offline)."""
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--no-build-isolation", "-q", "-w", str(out)],
        check=True,
        capture_output=True,
        cwd=out,
    )
    (built,) = out.glob(f"{package}-*.whl")
    return built


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``inference_constructs-*.whl`` built from a copy of this checkout's tracked files (no dependencies, no build
    isolation: offline), so no build folder or egg-info lands in the checkout, and none left there is read."""
    out = tmp_path_factory.mktemp("wheel")
    source = out / "source"
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True).stdout
    for name in tracked.decode().split("\0"):
        if name and (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    return _wheel_of(source, out, "inference_constructs")


@pytest.fixture(scope="session")
def loadtest_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``inference_loadtest-*.whl``, the load tester's distribution, built from a copy of this checkout's
    ``loadtest/`` (so no build folder lands in the checkout), offline as :func:`wheel` is."""
    out = tmp_path_factory.mktemp("loadtest-wheel")
    source = out / "loadtest"
    shutil.copytree(ROOT / "loadtest", source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    return _wheel_of(source, out, "inference_loadtest")


@pytest.fixture(scope="session")
def clean_python(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The interpreter of a clean venv outside the repository with the wheel installed.

    Offline: the dependencies (aws-cdk-lib, cdk-nag, pydantic, mypy, ...) come from the project venv's
    site-packages through a .pth file, and the wheel is installed with --no-deps --no-index. The project itself is
    never on that interpreter's path.
    """
    venv = tmp_path_factory.mktemp("clean") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    Path(site, "project-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [str(python), "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(wheel)],
        check=True,
        capture_output=True,
    )
    return python
