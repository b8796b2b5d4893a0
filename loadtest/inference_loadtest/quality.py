"""Quality next to speed: a dataset of prompts with checks, each response scored, and the report's success rate,
failure and retry rates, and cost per successful task.

A dataset is JSONL, one object a line: ``prompt`` (the request), optional ``max_tokens``, and one check:

- ``"reference": "Paris"`` (or ``"exact"``): the response, whitespace around it ignored, equals it;
- ``"regex": "\\\\bParis\\\\b"``: the pattern is found in the response (Python ``re.search``, ``DOTALL``);
- ``"json_schema": {...}``: the response (a fenced ```` ```json ```` block is unwrapped) parses as JSON and is
  valid against the schema (``jsonschema``, the dialect the schema's ``$schema`` names, else the latest);
- ``"judge": "criteria"``: a judge model, called through the Bedrock profile the user names
  (``--judge-profile``, ``Converse`` with temperature 0), answers PASS or FAIL for the response against the
  criteria.

Every check is read and compiled (patterns, schemas, the ``jsonschema`` import, the judge's profile) before the
first request. A request succeeds when it got a response and its check passed; cost per successful task is
what the instances cost while the level ran over the successful requests.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from inference_constructs.errors import InferenceConfigError
from inference_loadtest.prompts import Check, Lengths, Prompt
from inference_loadtest.stats import Pricing, RequestResult

KINDS = {"reference": "exact", "exact": "exact", "regex": "regex", "json_schema": "json_schema", "judge": "judge"}
"""Dataset keys and the check each names."""

JUDGE_PROMPT = (
    "You grade a model's response against criteria. Answer with exactly one word: PASS if the response meets "
    "the criteria, FAIL otherwise.\n\nCriteria:\n{criteria}\n\nPrompt:\n{prompt}\n\nResponse:\n{response}"
)
"""What the judge model is asked (its first word decides: PASS, else FAIL)."""

Judge = Callable[[str, str, str], tuple[bool, str]]
"""``judge(criteria, prompt, response)`` -> (passed, the judge's answer)."""


def _validator(schema: Any, where: str) -> Any:
    try:
        import jsonschema  # type: ignore[import-untyped, unused-ignore]
    except ImportError:
        raise InferenceConfigError(
            f"{where}: json_schema checks need jsonschema, checked before the first request; install it with "
            "pip install 'inference-loadtest[quality]'"
        ) from None
    cls = jsonschema.validators.validator_for(schema)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise InferenceConfigError(f"{where}: the json_schema is not a valid schema: {exc.message}") from None
    return cls(schema)


def _check(key: str, value: Any, where: str) -> Check:
    """A dataset line's check, compiled now: a bad pattern or schema is refused before the first request."""
    kind = KINDS[key]
    if kind in ("exact", "regex", "judge") and not isinstance(value, str):
        raise InferenceConfigError(f"{where}: {key} must be a string")
    if kind == "regex":
        try:
            re.compile(value)
        except re.error as exc:
            raise InferenceConfigError(f"{where}: regex {value!r} does not compile: {exc}") from None
    if kind == "json_schema":
        if not isinstance(value, dict | bool):
            raise InferenceConfigError(f"{where}: json_schema must be a JSON Schema object")
        _validator(value, where)
    return Check(kind, value)


def read_dataset(path: str | Path, *, output_tokens: Lengths) -> list[Prompt]:
    """The prompts of a dataset file, each with its :class:`~inference_loadtest.prompts.Check`."""
    import random

    rng = random.Random(0)
    try:
        lines = Path(path).read_text().splitlines()
    except OSError as exc:
        raise InferenceConfigError(f"--dataset: cannot read {path}: {exc.strerror}") from None
    out: list[Prompt] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"--dataset: {path} line {number}"
        try:
            obj = json.loads(line)
        except ValueError:
            obj = None
        if not isinstance(obj, dict) or not isinstance(obj.get("prompt"), str):
            raise InferenceConfigError(f"{where} is not allowed; use a JSON object with a string prompt")
        keys = [k for k in KINDS if k in obj]
        if len(keys) != 1:
            raise InferenceConfigError(
                f"{where} is not allowed; give exactly one check: reference (or exact), regex, json_schema or judge"
            )
        check = _check(keys[0], obj[keys[0]], where)
        max_tokens = obj.get("max_tokens")
        wanted = max_tokens if isinstance(max_tokens, int) and max_tokens > 0 else output_tokens.draw(rng)
        out.append(Prompt(obj["prompt"], wanted, check=check))
    if not out:
        raise InferenceConfigError(f"--dataset: {path} holds no prompts; use one JSON object a line")
    return out


_FENCE = re.compile(r"^\s*```(?:json)?\s*\n(.*?)\n?```\s*$", re.DOTALL)


def score(check: Check, prompt: str, response: str, judge: Judge | None = None) -> tuple[bool, str | None]:
    """(passed, why it failed or the judge's answer) of one response."""
    if check.kind == "exact":
        ok = response.strip() == str(check.value).strip()
        return ok, None if ok else f"expected {str(check.value).strip()[:60]!r}, got {response.strip()[:60]!r}"
    if check.kind == "regex":
        ok = re.search(check.value, response, re.DOTALL) is not None
        return ok, None if ok else f"no match of {check.value!r}"
    if check.kind == "json_schema":
        fenced = _FENCE.match(response)
        try:
            doc = json.loads(fenced.group(1) if fenced else response)
        except ValueError:
            return False, "not JSON"
        error = next(iter(_validator(check.value, "json_schema").iter_errors(doc)), None)
        return error is None, None if error is None else f"schema: {error.message}"
    if judge is None:
        raise InferenceConfigError("--judge-profile: the dataset has judge checks; name a Bedrock profile")
    return judge(str(check.value), prompt, response)


class BedrockJudge:
    """A judge model called through a Bedrock inference profile (``Converse``, temperature 0, 16 tokens at most).

    Parameters
    ----------
    client
        A boto3 ``bedrock-runtime`` client.
    model_id
        The profile's ID or ARN (or a model ID).
    """

    def __init__(self, client: Any, model_id: str) -> None:
        self.client = client
        self.model_id = model_id

    def __call__(self, criteria: str, prompt: str, response: str) -> tuple[bool, str]:
        text = JUDGE_PROMPT.format(criteria=criteria, prompt=prompt, response=response)
        out = self.client.converse(
            modelId=self.model_id,
            messages=[{"role": "user", "content": [{"text": text}]}],
            inferenceConfig={"maxTokens": 16, "temperature": 0},
        )
        blocks = out.get("output", {}).get("message", {}).get("content", [])
        answer = "".join(b.get("text", "") for b in blocks).strip()
        words = answer.split()
        return bool(words) and words[0].strip(".:,").upper() == "PASS", answer


def score_results(results: Sequence[RequestResult], prompts: Sequence[Prompt], judge: Judge | None = None) -> None:
    """Score every request whose prompt has a check: ``check_passed`` and ``check_detail`` are set in place.

    A failed request fails its check (``request failed``); a judge call that fails leaves the check unscored
    (``check_passed`` None, ``check_detail`` ``judge error: ...``): it is neither a success nor a wrong answer.
    """
    for r in results:
        prompt = prompts[r.index % len(prompts)] if r.index >= 0 else None
        if prompt is None or prompt.check is None:
            continue
        if not r.ok:
            r.check_passed, r.check_detail = False, "request failed"
            continue
        try:
            r.check_passed, r.check_detail = score(prompt.check, prompt.text, r.text or "", judge)
        except InferenceConfigError:
            raise
        except Exception as exc:  # the judge's service call: the response stays unscored
            r.check_passed, r.check_detail = None, f"judge error: {type(exc).__name__}: {exc}"


def summary(results: Sequence[RequestResult], *, pricing: Pricing, duration_s: float) -> dict[str, Any]:
    """The level's quality figures (warm-up excluded).

    - ``success_rate``: requests that got a response whose check passed (or that had no check), over requests;
    - ``failure_rate``: 1 - success_rate (request errors and failed checks); ``check_failure_rate``: failed
      checks over the requests that got a response;
    - ``retry_rate``: retries per request; ``retried_fraction``: requests retried at least once;
    - ``cost_per_successful_task_usd``: instances x price x the level's duration / successful requests (None
      without an instance price).
    """
    measured = [r for r in results if not r.warmup]
    n = len(measured)
    unscored = sum(
        1 for r in measured if r.ok and r.check_passed is None and (r.check_detail or "").startswith("judge")
    )
    checked = sum(1 for r in measured if r.check_passed is not None) + unscored
    passed = sum(1 for r in measured if r.check_passed is True)
    answered = [r for r in measured if r.ok]
    wrong = sum(1 for r in answered if r.check_passed is False)
    successes = sum(1 for r in answered if r.check_passed is True or (r.check_passed is None and not r.check_detail))
    cost = None
    if pricing.usd_per_hour is not None and successes:
        cost = float(f"{pricing.usd_per_hour * duration_s / 3600 / successes:.6g}")
    return {
        "requests": n,
        "checked": checked,
        "passed": passed,
        "unscored": unscored,
        "successes": successes,
        "success_rate": round(successes / n, 4) if n else 0.0,
        "failure_rate": round(1 - successes / n, 4) if n else 0.0,
        "check_failure_rate": round(wrong / len(answered), 4) if answered else 0.0,
        "retry_rate": round(sum(r.retries for r in measured) / n, 4) if n else 0.0,
        "retried_fraction": round(sum(1 for r in measured if r.retries) / n, 4) if n else 0.0,
        "cost_per_successful_task_usd": cost,
    }
