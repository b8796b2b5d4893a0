"""Token guidance: max output tokens, output burndown, prompt-cache checkpoints (pure)."""

from __future__ import annotations

import pytest

from inference_constructs.bedrock import cache_checkpoint_min_tokens, output_burndown_rate, token_guidance


@pytest.mark.parametrize(
    ("model_id", "rate"),
    [
        ("anthropic.claude-sonnet-4-5-20250929-v1:0", 5),
        ("anthropic.claude-opus-4-1-20250805-v1:0", 5),
        ("anthropic.claude-3-7-sonnet-20250219-v1:0", 5),
        ("anthropic.claude-haiku-4-5-20251001-v1:0", 5),
        ("amazon.nova-lite-v1:0", None),
        (None, None),
    ],
)
def test_output_burndown_rate_from_table(model_id: str | None, rate: int | None) -> None:
    # GIVEN a model id WHEN its output burndown rate is looked up THEN the table value or None
    assert output_burndown_rate(model_id) == rate


@pytest.mark.parametrize(
    ("model_id", "minimum"),
    [
        ("anthropic.claude-opus-4-5-20251101-v1:0", 4096),
        ("anthropic.claude-haiku-4-5-20251001-v1:0", 4096),
        ("anthropic.claude-sonnet-4-5-20250929-v1:0", 1024),
        ("anthropic.claude-opus-4-20250514-v1:0", 1024),
        ("anthropic.claude-3-7-sonnet-20250219-v1:0", 1024),
        ("anthropic.claude-3-5-haiku-20241022-v1:0", 2048),
        ("meta.llama3-1-70b-instruct-v1:0", None),
    ],
)
def test_cache_checkpoint_minimum_by_family(model_id: str, minimum: int | None) -> None:
    # GIVEN a model id WHEN the cache checkpoint minimum is looked up THEN the family's value or None
    assert cache_checkpoint_min_tokens(model_id) == minimum


def test_guidance_without_max_output_tokens_explains_the_reservation() -> None:
    # GIVEN no max_output_tokens WHEN guidance is built THEN it says the quota is reserved at start
    text = token_guidance("anthropic.claude-sonnet-4-5-20250929-v1:0", None)
    assert text[0].startswith("set max_output_tokens")
    assert "reserves input + max output tokens" in text[0]


def test_guidance_states_burndown_at_the_cap() -> None:
    # GIVEN a 5x model and max_output_tokens 4096 WHEN guidance is built THEN the worst case is shown
    text = token_guidance("anthropic.claude-sonnet-4-5-20250929-v1:0", 4096)
    assert any("burns 5 quota tokens per output token (up to 20480 quota tokens" in line for line in text)


def test_guidance_places_checkpoints_after_the_stable_prefix() -> None:
    # GIVEN a model with a known cache minimum WHEN guidance is built THEN checkpoint placement and minimum
    text = token_guidance("anthropic.claude-opus-4-5-20251101-v1:0", 2048)
    cache_line = next(line for line in text if "checkpoint" in line)
    assert "after the stable prefix" in cache_line
    assert "at least 4096 prefix tokens" in cache_line


def test_guidance_for_unknown_model_says_the_table_does_not_know() -> None:
    # GIVEN a model outside the tables WHEN guidance is built THEN it says so instead of guessing
    text = " ".join(token_guidance("meta.llama3-1-70b-instruct-v1:0", 512))
    assert "burndown rate for this model is not in the library table" in text
    assert "minimum tokens per checkpoint for this model is not in the library table" in text
