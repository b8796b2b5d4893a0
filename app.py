#!/usr/bin/env python3
"""CDK app: reads the platform config, plans it, composes the stacks. Composition only.

Config: ``cdk synth -c config=PATH``, else ``$INFERENCE_CONFIG``, else ``config/default.yaml``.
A config mistake prints one message listing every problem and exits 1 before anything is written.
Every synth also writes ``inference-plan.json`` into the cloud assembly directory.
"""

from __future__ import annotations

import os
import sys

# Before aws_cdk starts its Node process: no end-of-life banner for the Node version in use.
for _var in ("JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION", "JSII_SILENCE_WARNING_UNTESTED_NODE_VERSION"):
    os.environ.setdefault(_var, "1")
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")


def main() -> int:
    """Synthesize the platform; returns the process exit code."""
    from aws_cdk import App

    from inference_constructs.config import resolve_config_path
    from inference_constructs.errors import InferenceConfigError
    from inference_constructs.stacks.platform import synthesize

    app = App()
    try:
        result = synthesize(app, resolve_config_path(app.node.try_get_context("config")))
    except InferenceConfigError as exc:
        print(exc, file=sys.stderr)
        return 1
    print(result.plan.table(), file=sys.stderr, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
