#!/usr/bin/env python3
"""CDK app: the platform a config file describes (:class:`inference_constructs.InferencePlatform`), nothing else.

Config: ``cdk synth -c config=PATH``, else ``$INFERENCE_CONFIG``, else this repository's ``config/default.yaml``.
A relative PATH is read against the working directory the CDK CLI was started in; a mistake prints one message
listing every problem (naming the file it tried) and exits 1 before anything is written. Every synth empties the
output directory first, and writes ``inference-plan.json`` beside the templates.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

# Before aws_cdk starts its Node process: no end-of-life banner for the Node version in use.
for _var in ("JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION", "JSII_SILENCE_WARNING_UNTESTED_NODE_VERSION"):
    os.environ.setdefault(_var, "1")
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

HERE = Path(__file__).resolve().parent


def config_path(context_value: object | None) -> Path:
    """The config file to read, absolute: a given path against the working directory, the default in this repo."""
    from inference_constructs.config import ENV_VAR, resolve_config_path

    path = resolve_config_path(context_value)
    given = (isinstance(context_value, str) and context_value) or os.environ.get(ENV_VAR)
    return Path.cwd() / path if given else HERE / path


def main() -> int:
    """Synthesize the platform; returns the process exit code."""
    from aws_cdk import App

    from inference_constructs.errors import InferenceConfigError
    from inference_constructs.stacks.platform import synthesize

    app = App()
    try:
        result = synthesize(app, config_path(app.node.try_get_context("config")))
    except InferenceConfigError as exc:
        print(exc, file=sys.stderr)
        return 1
    print(result.plan.table(), file=sys.stderr, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
