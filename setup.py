"""Packaging shim: ships the top-level ``lambda/`` asset folders inside the wheel as
``inference_constructs/_lambda`` so constructs imported from an installed wheel find their handlers."""

from setuptools import find_packages, setup

_LAMBDA_DIRS = sorted(p for p in __import__("os").listdir("lambda") if not p.startswith((".", "_")))

setup(
    packages=[*find_packages(include=["inference_constructs", "inference_constructs.*"]), "inference_constructs._lambda"],
    package_dir={"inference_constructs._lambda": "lambda"},
    package_data={
        "inference_constructs": ["py.typed", "**/*.json", "**/*.yaml"],
        "inference_constructs._lambda": [f"{d}/*.py" for d in _LAMBDA_DIRS],
    },
)
