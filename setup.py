"""Packaging shim: ships the top-level ``lambda/`` asset folders inside the wheel as
``inference_constructs/_lambda/<name>/`` so constructs imported from an installed wheel find their
handlers (see ``inference_constructs/_assets.py``). Everything else is in pyproject.toml."""

from pathlib import Path

from setuptools import find_packages, setup

_LAMBDA_DIRS = sorted(p.name for p in Path("lambda").iterdir() if p.is_dir() and not p.name.startswith((".", "_")))

setup(
    packages=[
        *find_packages(include=["inference_constructs", "inference_constructs.*"]),
        "inference_constructs._lambda",
        *(f"inference_constructs._lambda.{name}" for name in _LAMBDA_DIRS),
    ],
    package_dir={"inference_constructs._lambda": "lambda"},
    package_data={"inference_constructs": ["py.typed", "**/*.json", "**/*.yaml"]},
)
