"""``inference-loadtest run``, as ``python -m inference_constructs loadtest``: safe by default, the JSON contract,
every report output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from botocore.stub import Stubber

from inference_constructs.__main__ import main
from inference_loadtest import cli
from inference_loadtest.runner import make_client
from inference_loadtest.server import LocalServer

ROOT = Path(__file__).resolve().parents[3]
CONFIG = str(ROOT / "config" / "default.yaml")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--requests", "3"], "no target; use --endpoint NAME or --profile ID_OR_ARN"),
        (["--endpoint", "e"], "no bound; use --requests N"),
        (["--endpoint", "e", "--requests", "2", "--concurrency", "1,0"], "--concurrency: '1,0' is not allowed"),
        (["--endpoint", "e", "--requests", "2", "--input-tokens", "x"], "--input-tokens: 'x' is not allowed"),
    ],
)
def test_refuses_without_target_and_bound(
    argv: list[str], message: str, server: LocalServer, capsys: pytest.CaptureFixture[str]
) -> None:
    # WHEN the command lacks a target, a bound, or has a bad option
    code = main(["loadtest", *argv])
    # THEN it exits 2 with one message and sends nothing
    assert code == cli.EXIT_CONFIG_ERROR
    assert message in capsys.readouterr().err
    assert server.counters.requests == 0


def test_json_contract_through_the_standard_endpoint_variable(
    server: LocalServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # GIVEN the runtime endpoint set the way boto3 reads it everywhere
    monkeypatch.setenv("AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME", server.url)
    # WHEN a 2-level sweep of the plan's chat endpoint runs with --json
    code = main(
        [
            "loadtest",
            "--plan",
            CONFIG,
            "--endpoint",
            "chat",
            "--concurrency",
            "1,2",
            "--requests",
            "2",
            "--output-tokens",
            "8",
            "--json",
            "--no-progress",
        ]
    )
    captured = capsys.readouterr()
    # THEN it printed the estimate first, then the contract: times in ms, one entry per level
    assert code == 0
    assert "at most 4 requests (2 level(s) x (2 + 0 warm-up))" in captured.err
    report = json.loads(captured.out)
    assert [lv["concurrency"] for lv in report["levels"]] == [1, 2]
    level = report["levels"][0]
    assert {"concurrency", "requests", "errors", "ttft_ms", "itl_ms", "e2e_ms", "output_tokens_per_s"} <= set(level)
    assert set(level["ttft_ms"]) == {"p50", "p90", "p99"}
    assert level["ttft_ms"]["p50"] >= 20  # the server's 20 ms, in milliseconds
    assert (level["requests"], level["errors"]) == (2, 0)
    assert report["target"]["identifier"] == "acme-genai-chat"
    assert server.counters.paths[0] == "/endpoints/acme-genai-chat/invocations-response-stream"
    assert level["cost_per_million_output_tokens_usd"] > 0


def test_table_markdown_and_chart(server: LocalServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    md, png, out = tmp_path / "r.md", tmp_path / "r.png", tmp_path / "r.json"
    code = main(
        [
            "loadtest",
            "--endpoint",
            "e",
            "--endpoint-url",
            server.url,
            "--concurrency",
            "1,2",
            "--requests",
            "2",
            "--slo-ttft-ms",
            "500",
            "--markdown",
            str(md),
            "--chart",
            str(png),
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    table = capsys.readouterr().out
    assert code == 0
    assert table.splitlines()[1].split()[:3] == ["level", "requests", "errors"]
    assert "| level | requests |" in md.read_text()
    assert "![latency against throughput](r.png)" in md.read_text()
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert json.loads(out.read_text())["knee"]["holds_at_concurrency"] == 2


def test_bedrock_profile_name_from_the_plan_is_looked_up(
    server: LocalServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # GIVEN the control plane lists the application profile the stack created for team-a-sonnet
    arn = "arn:aws:bedrock:us-east-1:111122223333:application-inference-profile/a1b2c3"
    bedrock = make_client("bedrock", pool=1)
    stubber = Stubber(bedrock)
    stubber.add_response(
        "list_inference_profiles",
        {"inferenceProfileSummaries": [_profile_summary("other", arn + "x"), _profile_summary("team-a-sonnet", arn)]},
        {"typeEquals": "APPLICATION"},
    )
    monkeypatch.setattr(cli, "_control_client", lambda service, args: bedrock)
    monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", server.url)
    # WHEN the test names the plan's profile
    with stubber:
        code = main(
            ["loadtest", "--plan", CONFIG, "--profile", "team-a-sonnet", "--requests", "1", "--json", "--no-progress"]
        )
    # THEN ConverseStream went to the profile's ARN
    assert code == 0
    assert json.loads(capsys.readouterr().out)["target"]["identifier"] == arn
    assert server.counters.paths == ["/model/" + arn.replace(":", "%3A").replace("/", "%2F") + "/converse-stream"]


def _profile_summary(name: str, arn: str) -> dict[str, Any]:
    import datetime as dt

    return {
        "inferenceProfileName": name,
        "inferenceProfileArn": arn,
        "inferenceProfileId": arn.rsplit("/", 1)[1],
        "models": [{"modelArn": "arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-haiku-20240307-v1:0"}],
        "status": "ACTIVE",
        "type": "APPLICATION",
        "createdAt": dt.datetime(2026, 1, 1),
        "updatedAt": dt.datetime(2026, 1, 1),
    }


def test_the_command_line_imports_neither_boto3_nor_matplotlib_until_it_runs() -> None:
    # GIVEN a fresh interpreter WHEN it imports the command lines and the load-test package
    import os
    import subprocess
    import sys

    code = "import sys, inference_constructs.__main__, inference_loadtest, inference_loadtest.cli; "
    code += "print(sorted(m for m in ('boto3', 'botocore', 'matplotlib', 'aws_cdk') if m in sys.modules))"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "loadtest")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    # THEN `plan` stays light: none of them is loaded
    assert out.strip() == "[]"


def test_payload_file_for_a_classical_model(
    server: LocalServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # GIVEN a CSV row for the default platform's scikit-learn endpoint
    row = tmp_path / "row.csv"
    row.write_bytes(b"0.1,3,12,1\n")
    # WHEN it is load-tested through InvokeEndpoint with that payload
    code = main(
        [
            "loadtest",
            "--plan",
            CONFIG,
            "--endpoint",
            "churn",
            "--endpoint-url",
            server.url,
            "--requests",
            "2",
            "--payload",
            str(row),
            "--content-type",
            "text/csv",
            "--json",
            "--no-progress",
        ]
    )
    # THEN every request carried the CSV row to the deployed name, and serverless has no instance price
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    assert report["target"]["api"] == "InvokeEndpoint"
    assert server.counters.bodies == [b"0.1,3,12,1\n"] * 2
    assert server.counters.paths[0] == "/endpoints/acme-genai-churn/invocations"
    assert report["levels"][0]["cost_per_million_output_tokens_usd"] is None
