"""The cache workloads: a shared prefix of a given length and share, multi-turn conversations that resend their
history, and the report's TTFT per group. Cache hits need a real endpoint; these tests check the workload's
shape, what reached the server, and the report's arithmetic."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inference_constructs.__main__ import main
from inference_loadtest.prompts import SHARED, UNSHARED, Lengths, multi_turn_prompts, shared_prefix_prompts
from inference_loadtest.server import LocalServer
from inference_loadtest.stats import Pricing, RequestResult, Slo, level_summary, summary_ms

NO_PRICE = Pricing(None, None, "none")


def test_shared_prefix_share_length_and_token_counts() -> None:
    # GIVEN 40 prompts, a quarter of them behind one 32-token prefix
    prompts = shared_prefix_prompts(
        40, prefix_tokens=32, share=0.25, input_tokens=Lengths(12, 3), output_tokens=Lengths(8), seed=3
    )
    shared = [p for p in prompts if p.group == SHARED]
    # THEN exactly 10 carry the prefix: the same first 32 words, and then their own words
    assert len(shared) == 10
    assert {p.group for p in prompts} == {SHARED, UNSHARED}
    prefix = shared[0].text.split()[:32]
    assert all(p.text.split()[:32] == prefix for p in shared)
    assert len({p.text.split()[32] for p in shared}) == 10  # they part right after the prefix
    # AND no other prompt shares even a first token with another one
    firsts = [p.text.split()[0] for p in prompts if p.group == UNSHARED]
    assert len(set(firsts)) == 30 and prefix[0] not in firsts
    # AND each prompt's input_tokens is its word count (the prefix counted for shared ones)
    assert all(p.input_tokens == len(p.text.split()) for p in prompts)
    assert all(p.input_tokens is not None and p.input_tokens >= 32 + 1 for p in shared)
    # AND the same seed gives the same workload
    again = shared_prefix_prompts(
        40, prefix_tokens=32, share=0.25, input_tokens=Lengths(12, 3), output_tokens=Lengths(8), seed=3
    )
    assert again == prompts


def test_multi_turn_resends_the_history_in_turn_major_order() -> None:
    # GIVEN 3 conversations of 4 turns
    prompts = multi_turn_prompts(3, turns=4, input_tokens=Lengths(5, 2), output_tokens=Lengths(6, 2), seed=1)
    assert len(prompts) == 12
    # THEN turn 1 of every conversation comes first, then turn 2, ...
    assert [p.group for p in prompts] == [f"turn {k}" for k in range(1, 5) for _ in range(3)]
    for c in range(3):
        turns = prompts[c::3]
        for k, p in enumerate(turns):
            # AND turn k+1 resends every earlier turn: the user's text and the answer's stand-in of the asked length
            assert len(p.history) == 2 * k
            if k:
                prev = turns[k - 1]
                assert p.history[: 2 * (k - 1)] == prev.history
                assert p.history[-2] == ("user", prev.text)
                role, answer = p.history[-1]
                assert role == "assistant" and len(answer.split()) == prev.max_tokens
            # AND its input tokens count the whole history
            assert p.input_tokens == sum(len(t.split()) for _, t in p.history) + len(p.text.split())


def test_multi_turn_reaches_the_server_with_the_history(
    server: LocalServer, capsys: pytest.CaptureFixture[str]
) -> None:
    # GIVEN an OpenAI-compatible container
    server.configure(format="openai")
    argv = ["loadtest", "--endpoint", "e", "--endpoint-url", server.url, "--format", "openai", "--json"]
    # WHEN 2 conversations of 3 turns run one request at a time
    code = main([*argv, "--turns", "3", "--conversations", "2", "--requests", "6", "--input-tokens", "4"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    # THEN each turn's body carried the conversation so far as messages, in order
    bodies = [json.loads(b) for b in server.counters.bodies]
    roles = [[m["role"] for m in b["messages"]] for b in bodies]
    assert roles == [["user"]] * 2 + [["user", "assistant", "user"]] * 2 + [["user", "assistant"] * 2 + ["user"]] * 2
    for later, earlier in ((2, 0), (3, 1), (4, 2), (5, 3)):
        assert bodies[later]["messages"][: len(bodies[earlier]["messages"])] == bodies[earlier]["messages"]
    # AND the report has TTFT per turn, and the groups add up to the level
    level = report["levels"][0]
    assert list(level["groups"]) == ["turn 1", "turn 2", "turn 3"]
    assert sum(g["requests"] for g in level["groups"].values()) == level["requests"] == 6
    words = [sum(len(m["content"].split()) for m in b["messages"]) for b in bodies]
    assert [g["input_tokens"]["mean"] for g in level["groups"].values()] == [
        sum(words[0:2]) / 2,
        sum(words[2:4]) / 2,
        sum(words[4:6]) / 2,
    ]
    assert all(g["ttft_ms"]["p50"] >= 20 for g in level["groups"].values())  # the server's 20 ms


def test_shared_prefix_reaches_the_server_and_reports_per_group(
    server: LocalServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # WHEN 8 requests run with a 64-token prefix on half of them (TGI/LMI bodies: the text as inputs)
    per_request = tmp_path / "r.jsonl"
    options = "--concurrency 2 --requests 8 --prefix-tokens 64 --prefix-share 0.5 --input-tokens 10 --json"
    argv = ["loadtest", "--endpoint", "e", "--endpoint-url", server.url, *options.split()]
    code = main([*argv, "--requests-out", str(per_request)])
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    # THEN the server got exactly the workload's first 8 prompts, and those of the shared group begin with the
    # same 64 words
    expected = shared_prefix_prompts(
        64, prefix_tokens=64, share=0.5, input_tokens=Lengths(10), output_tokens=Lengths(128), seed=0
    )[:8]
    inputs = [json.loads(b)["inputs"] for b in server.counters.bodies]
    assert sorted(inputs) == sorted(p.text for p in expected)
    shared_texts = [p.text for p in expected if p.group == SHARED]
    assert 0 < len(shared_texts) < 8
    assert len({" ".join(t.split()[:64]) for t in shared_texts}) == 1
    # AND the report's groups are computed from the per-request lines
    lines = [json.loads(line) for line in per_request.read_text().splitlines()]
    level = report["levels"][0]
    for name, group in level["groups"].items():
        mine = [ln for ln in lines if ln["group"] == name and not ln["warmup"]]
        assert group["requests"] == len(mine)
        assert group["input_tokens"]["total"] == sum(ln["input_tokens"] for ln in mine)
        from_lines = summary_ms([ln["ttft_ms"] / 1000 for ln in mine])  # the lines keep 1 us: +-0.01 ms rounding
        assert group["ttft_ms"] == {k: pytest.approx(v, abs=0.011) for k, v in from_lines.items()}
    assert set(level["groups"]) <= {SHARED, UNSHARED}
    shared_lines = [ln for ln in lines if ln["group"] == SHARED]
    assert all(ln["input_tokens"] == 64 + 10 for ln in shared_lines)
    assert all(ln["input_tokens"] == 10 for ln in lines if ln["group"] == UNSHARED)


def test_group_arithmetic() -> None:
    # GIVEN two groups with known TTFTs, one failure, one request over a 100 ms TTFT SLO
    def r(group: str, ttft: float, ok: bool = True) -> RequestResult:
        return RequestResult(ok=ok, e2e_s=ttft + 0.5, ttft_s=ttft if ok else None, group=group, input_tokens=10)

    results = [r("a", 0.05), r("a", 0.07), r("a", 0.2), r("b", 0.03), r("b", 0.0, ok=False)]
    level = level_summary(results, concurrency=2, rate_rps=None, slo=Slo(ttft_ms=100), pricing=NO_PRICE)
    a, b = level["groups"]["a"], level["groups"]["b"]
    # THEN each group's figures are its own requests'
    assert (a["requests"], a["errors"], b["requests"], b["errors"]) == (3, 0, 2, 1)
    assert a["ttft_ms"] == summary_ms([0.05, 0.07, 0.2])
    assert a["ttft_ms"]["p50"] == 70.0
    assert b["ttft_ms"] == {"p50": 30.0, "p90": 30.0, "p99": 30.0}
    assert (a["goodput_fraction"], b["goodput_fraction"]) == (round(2 / 3, 4), 0.5)
    assert a["input_tokens"]["total"] == 30


def test_history_in_each_request_shape() -> None:
    from inference_loadtest.formats import StreamFormat, converse_messages, request_body

    history = [("user", "a b"), ("assistant", "c")]
    # Bedrock Converse: one message per turn, roles alternating, the new turn last
    assert converse_messages(history, "d") == [
        {"role": "user", "content": [{"text": "a b"}]},
        {"role": "assistant", "content": [{"text": "c"}]},
        {"role": "user", "content": [{"text": "d"}]},
    ]
    # TGI/LMI: the turns' texts before the prompt, word for word (no chat template)
    assert json.loads(request_body(StreamFormat.LMI, "d", 4, history=history))["inputs"] == "a b\n\nc\n\nd"
