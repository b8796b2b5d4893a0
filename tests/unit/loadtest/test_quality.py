"""Quality next to speed: the scorers on fixed responses, a judge model through a Bedrock profile (botocore's
Stubber with the real service model, no network), the dataset's checks refused before the first request, and the
report's success, failure and retry rates and cost per successful task."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from botocore.stub import Stubber

from inference_constructs.__main__ import main
from inference_constructs.errors import InferenceConfigError
from inference_loadtest import cli
from inference_loadtest.prompts import Check, Lengths, Prompt
from inference_loadtest.quality import JUDGE_PROMPT, BedrockJudge, read_dataset, score, score_results, summary
from inference_loadtest.runner import make_client
from inference_loadtest.server import LocalServer
from inference_loadtest.stats import Pricing, RequestResult

SCHEMA = {"type": "object", "required": ["city"], "properties": {"city": {"type": "string"}}}


@pytest.mark.parametrize(
    ("check", "response", "passed", "detail"),
    [
        (Check("exact", "Paris"), "  Paris\n", True, None),
        (Check("exact", "Paris"), "paris", False, "expected 'Paris', got 'paris'"),
        (Check("regex", r"\bt2\b.*t7"), " t0 t1 t2 né t4 t5 t6 t7", True, None),
        (Check("regex", r"^Paris$"), "It is Paris", False, "no match of '^Paris$'"),
        (Check("json_schema", SCHEMA), '{"city": "Paris"}', True, None),
        (Check("json_schema", SCHEMA), '```json\n{"city": "Paris"}\n```', True, None),
        (Check("json_schema", SCHEMA), '{"city": 3}', False, "schema: 3 is not of type 'string'"),
        (Check("json_schema", SCHEMA), "{}", False, "schema: 'city' is a required property"),
        (Check("json_schema", SCHEMA), "Paris", False, "not JSON"),
    ],
)
def test_scorers_on_fixed_responses(check: Check, response: str, passed: bool, detail: str | None) -> None:
    assert score(check, "prompt", response) == (passed, detail)


def _judge_response(text: str) -> dict[str, Any]:
    return {
        "output": {"message": {"role": "assistant", "content": [{"text": text}]}},
        "stopReason": "end_turn",
        "usage": {"inputTokens": 50, "outputTokens": 1, "totalTokens": 51},
        "metrics": {"latencyMs": 120},
    }


PROFILE = "arn:aws:bedrock:us-east-1:111122223333:application-inference-profile/judge1"


@pytest.mark.parametrize(("answer", "passed"), [("PASS", True), ("pass.", True), ("FAIL: wrong city", False)])
def test_judge_through_a_bedrock_profile(answer: str, passed: bool) -> None:
    # GIVEN a bedrock-runtime client whose Converse call is checked against botocore's service model
    client = make_client("bedrock-runtime", pool=1)
    stubber = Stubber(client)
    expected = {
        "modelId": PROFILE,
        "messages": [
            {
                "role": "user",
                "content": [{"text": JUDGE_PROMPT.format(criteria="names Paris", prompt="Capital?", response="Paris")}],
            }
        ],
        "inferenceConfig": {"maxTokens": 16, "temperature": 0},
    }
    stubber.add_response("converse", _judge_response(answer), expected)
    # WHEN the judge grades a response
    with stubber:
        verdict = score(Check("judge", "names Paris"), "Capital?", "Paris", BedrockJudge(client, PROFILE))
    # THEN its first word decides, and its answer is kept
    assert verdict == (passed, answer)
    stubber.assert_no_pending_responses()


def test_a_failing_judge_call_leaves_the_response_unscored() -> None:
    client = make_client("bedrock-runtime", pool=1)
    stubber = Stubber(client)
    stubber.add_client_error("converse", "AccessDeniedException", "not allowed", 403)
    results = [RequestResult(ok=True, e2e_s=1.0, text="Paris", index=0)]
    with stubber:
        score_results(results, [Prompt("Capital?", 4, check=Check("judge", "c"))], BedrockJudge(client, PROFILE))
    assert results[0].check_passed is None
    assert results[0].check_detail is not None and results[0].check_detail.startswith(
        "judge error: AccessDeniedException"
    )
    q = summary(results, pricing=Pricing(None, None, "x"), duration_s=1.0)
    assert (q["unscored"], q["successes"], q["success_rate"]) == (1, 0, 0.0)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"prompt": "a"}', "give exactly one check"),
        ('{"prompt": "a", "regex": "x", "reference": "y"}', "give exactly one check"),
        ('{"prompt": "a", "regex": "("}', "regex '(' does not compile"),
        ('{"prompt": "a", "json_schema": {"type": "nope"}}', "the json_schema is not a valid schema"),
        ('{"text": "a", "reference": "b"}', "use a JSON object with a string prompt"),
    ],
)
def test_bad_dataset_lines_are_refused(line: str, message: str, tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text(line + "\n")
    with pytest.raises(InferenceConfigError, match=f"--dataset: {data} line 1"):
        try:
            read_dataset(data, output_tokens=Lengths(8))
        except InferenceConfigError as exc:
            assert message in str(exc)
            raise


def test_quality_summary_arithmetic() -> None:
    # GIVEN 5 measured requests: 2 right, 1 wrong answer, 1 error (2 retries), 1 with no check; one warm-up
    def r(ok: bool, passed: bool | None, retries: int = 0, warmup: bool = False) -> RequestResult:
        return RequestResult(ok=ok, e2e_s=1.0, check_passed=passed, retries=retries, warmup=warmup)

    results = [
        r(True, True),
        r(True, True, 1),
        r(True, False),
        r(False, False, 2),
        r(True, None),
        r(True, True, 0, True),
    ]
    q = summary(results, pricing=Pricing(3.6, 2, "plan"), duration_s=10.0)
    # THEN successes are the right answers and the unchecked response: 3 of 5
    assert q == {
        "requests": 5,
        "checked": 4,
        "passed": 2,
        "unscored": 0,
        "successes": 3,
        "success_rate": 0.6,
        "failure_rate": 0.4,
        "check_failure_rate": 0.25,  # 1 wrong of the 4 that answered
        "retry_rate": 0.6,  # 3 retries over 5 requests
        "retried_fraction": 0.4,
        "cost_per_successful_task_usd": float(f"{3.6 * 2 * 10 / 3600 / 3:.6g}"),  # 2 instances x $3.6/h x 10 s / 3
    }
    assert summary(results, pricing=Pricing(None, None, "x"), duration_s=10.0)["cost_per_successful_task_usd"] is None


def test_a_dataset_run_against_the_local_server(
    server: LocalServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # GIVEN a dataset the local server's answer (" t0 t1 t2 né t4 t5 t6 t7") passes twice and fails twice
    data = tmp_path / "d.jsonl"
    rows = [
        {"prompt": "count", "max_tokens": 8, "regex": "t0 t1"},
        {"prompt": "count", "max_tokens": 8, "reference": "t0 t1 t2 né t4 t5 t6 t7"},
        {"prompt": "count", "max_tokens": 8, "reference": "t0"},
        {"prompt": "json", "max_tokens": 8, "json_schema": SCHEMA},
    ]
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    per_request = tmp_path / "r.jsonl"
    argv = ["loadtest", "--endpoint", "e", "--endpoint-url", server.url, "--dataset", str(data), "--requests", "4"]
    code = main([*argv, "--price-per-hour", "3.6", "--instances", "1", "--requests-out", str(per_request), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    # THEN each response was scored, and the level reports success and cost per successful task
    q = report["levels"][0]["quality"]
    assert (q["requests"], q["checked"], q["passed"], q["successes"]) == (4, 4, 2, 2)
    assert (q["success_rate"], q["check_failure_rate"]) == (0.5, 0.5)
    duration = report["levels"][0]["duration_s"]
    assert q["cost_per_successful_task_usd"] == pytest.approx(3.6 * duration / 3600 / 2, rel=1e-3)
    lines = sorted((json.loads(ln) for ln in per_request.read_text().splitlines()), key=lambda ln: ln["index"])
    assert [ln["check_passed"] for ln in lines] == [True, True, False, False]
    assert lines[3]["check_detail"] == "not JSON"
    # AND a gate on the success rate reads it
    code = main([*argv, "--gate", "quality.success_rate>=0.9", "--no-progress"])
    assert code == cli.EXIT_GATE


def test_judge_checks_need_a_judge_profile_before_the_first_request(
    server: LocalServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text('{"prompt": "Capital of France?", "judge": "names Paris"}\n')
    argv = ["loadtest", "--endpoint", "e", "--endpoint-url", server.url, "--dataset", str(data), "--requests", "1"]
    assert main(argv) == cli.EXIT_CONFIG_ERROR
    assert "--judge-profile: " in capsys.readouterr().err
    assert server.counters.requests == 0


def test_markdown_states_the_tool_and_its_open_loop_overhead_and_the_chart_gains_quality(
    server: LocalServer, tmp_path: Path
) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text('{"prompt": "count", "max_tokens": 4, "regex": "t0"}\n')
    md, png = tmp_path / "r.md", tmp_path / "r.png"
    argv = ["loadtest", "--endpoint", "e", "--endpoint-url", server.url, "--dataset", str(data), "--rate", "20"]
    assert main([*argv, "--requests", "3", "--markdown", str(md), "--chart", str(png), "--no-progress"]) == 0
    text = md.read_text()
    assert "- tool: inference-loadtest " in text
    assert (
        "- the generator's own overhead in the open loop (send - scheduled time, measured this run): 20/s p50 " in text
    )
    assert "- arrivals: poisson; latencies from the scheduled send time" in text
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
