"""Suite-wide settings: offline, quiet jsii, no AWS credentials needed."""

from __future__ import annotations

import os
import sys
from pathlib import Path

# The load tester (the inference-loadtest distribution in loadtest/) of this checkout, ahead of an installed copy.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "loadtest"))

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")
os.environ.setdefault("JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION", "1")
os.environ.setdefault("JSII_SILENCE_WARNING_UNTESTED_NODE_VERSION", "1")
os.environ.setdefault("CDK_DISABLE_CLI_TELEMETRY", "true")
# boto3 clients in tests talk to Stubber or moto only: never to a real account.
os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
os.environ.pop("AWS_PROFILE", None)
