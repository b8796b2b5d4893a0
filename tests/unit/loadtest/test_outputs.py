"""Nothing lost, nothing dirtied: outputs and optional dependencies checked before the first request, results kept
when the chart fails, documented commands that write no tracked file, and one clean error when AWS is out of
reach."""

from __future__ import annotations

import json
import re
import socket
import sys
from pathlib import Path
from typing import Any

import pytest

from inference_constructs.__main__ import main
from inference_loadtest import cli
from inference_loadtest import report as rep
from inference_loadtest.server import LocalServer

ROOT = Path(__file__).resolve().parents[3]
CONFIG = str(ROOT / "config" / "default.yaml")


def _argv(server: LocalServer, *extra: str) -> list[str]:
    return ["loadtest", "--endpoint", "e", "--endpoint-url", server.url, "--requests", "2", "--no-progress", *extra]


def test_missing_matplotlib_is_refused_before_the_first_request(
    server: LocalServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # GIVEN an interpreter without matplotlib (an import of it fails)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    # WHEN a run asks for a chart
    code = main(_argv(server, "--chart", str(tmp_path / "c.png"), "--out", str(tmp_path / "r.json")))
    # THEN it stops with the install command before sending anything, and writes nothing
    assert code == cli.EXIT_CONFIG_ERROR
    assert "--chart: needs matplotlib, checked before the first request" in capsys.readouterr().err
    assert server.counters.requests == 0
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--out", "{tmp}/missing/r.json"], "--out: the folder '{tmp}/missing' does not exist"),
        (["--markdown", "{tmp}"], "--markdown: '{tmp}' is a directory"),
        (["--out", "{tmp}/r.json", "--requests-out", "{tmp}/r.json"], "--requests-out: '{tmp}/r.json' is also --out"),
        (["--chart", "{tmp}/c.txt"], "--chart: '{tmp}/c.txt' is not allowed; use a file ending in .png, .svg, .pdf"),
    ],
)
def test_output_paths_are_checked_before_the_first_request(
    extra: list[str], message: str, server: LocalServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(_argv(server, *(e.format(tmp=tmp_path) for e in extra)))
    assert code == cli.EXIT_CONFIG_ERROR
    assert message.format(tmp=tmp_path) in capsys.readouterr().err
    assert server.counters.requests == 0


def test_results_are_written_when_the_chart_fails(
    server: LocalServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # GIVEN drawing fails after the run (a full disk, a broken backend)
    def broken(report: dict[str, Any], path: str | Path) -> Path:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(rep, "chart", broken)
    out, md, per_request = tmp_path / "r.json", tmp_path / "r.md", tmp_path / "r.jsonl"
    # WHEN the run asks for every output
    code = main(
        _argv(
            server,
            "--chart",
            str(tmp_path / "c.png"),
            "--out",
            str(out),
            "--markdown",
            str(md),
            "--requests-out",
            str(per_request),
        )
    )
    captured = capsys.readouterr()
    # THEN every other output holds the results, the Markdown links no chart, and the exit code says so
    assert code == cli.EXIT_OUTPUT_FAILED
    assert json.loads(out.read_text())["levels"][0]["requests"] == 2
    assert "![" not in md.read_text()
    assert len(per_request.read_text().splitlines()) == 2
    assert "load test of e" in captured.out
    [line] = [ln for ln in captured.err.splitlines() if ln.startswith("--chart")]
    assert f"could not draw {tmp_path / 'c.png'}: OSError" in line
    assert str(out) in line


_OUTPUT = re.compile(r"--(?:chart|out|markdown|requests-out|payload-out)[ =]+(\S+)")


@pytest.mark.parametrize("doc", ["README.md", "docs/loadtest.md", "docs/config.md", "loadtest/README.md"])
def test_documented_commands_write_no_file_of_the_repository(doc: str) -> None:
    # GIVEN every output path a documented command names
    text = (ROOT / doc).read_text()
    paths = [m.strip("\"'") for m in _OUTPUT.findall(text)]
    # THEN none is a file of the repository (a fresh clone stays clean: outputs go to the working folder or TMPDIR)
    relative = [p for p in paths if "$" not in p and not p.startswith(("/", "<", "FILE"))]
    assert [p for p in relative if (ROOT / p).exists()] == []


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_unreachable_control_plane_is_one_error_naming_the_profile(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # GIVEN nothing listens where Bedrock's control plane is expected
    url = f"http://127.0.0.1:{_closed_port()}"
    # WHEN a plan profile is load-tested (its ARN is looked up first)
    code = main(["loadtest", "--plan", CONFIG, "--profile", "team-a-sonnet", "--endpoint-url", url, "--requests", "1"])
    err = capsys.readouterr().err
    # THEN one line names the profile and the failure, no traceback
    assert code == cli.EXIT_AWS_ERROR
    assert "Traceback" not in err
    [line] = [ln for ln in err.splitlines() if "EndpointConnectionError" in ln]
    assert line.startswith(f"loadtest: cannot use profile 'team-a-sonnet' at {url}: EndpointConnectionError")


def test_an_unreachable_runtime_stops_after_the_first_request(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # GIVEN a runtime URL nothing listens on
    url = f"http://127.0.0.1:{_closed_port()}"
    # WHEN 40 requests are asked for at concurrency 1, one attempt each
    code = main(["loadtest", "--endpoint", "e", "--endpoint-url", url, "--requests", "40", "--max-attempts", "1"])
    err = capsys.readouterr().err
    # THEN the run stops at the first failure with one line naming the endpoint and the URL
    assert code == cli.EXIT_AWS_ERROR
    assert "Traceback" not in err
    assert f"loadtest: cannot reach e (InvokeEndpointWithResponseStream at {url}): EndpointConnectionError" in err


def test_no_credentials_is_refused_before_the_first_request(
    server: LocalServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # GIVEN no credentials anywhere in the standard chain
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.delenv("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", raising=False)
    monkeypatch.delenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", raising=False)
    # WHEN a run starts
    code = main(_argv(server))
    err = capsys.readouterr().err
    # THEN nothing was sent and one line says which target had no credentials
    assert code == cli.EXIT_AWS_ERROR
    assert server.counters.requests == 0
    assert f"loadtest: cannot use endpoint 'e' at {server.url}: NoCredentialsError: Unable to locate credentials" in err
