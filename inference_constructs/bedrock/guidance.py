"""Token guidance for Bedrock profiles: output-token burndown and prompt-cache checkpoints.

Pure Python (no ``aws_cdk`` import). The tables are dated snapshots with sources; a model the table
does not know gets guidance that says so instead of a guessed number.

Sources (read 2026-11):

- [BURNDOWN] Bedrock *How tokens are counted in Amazon Bedrock* (quotas-token-burndown.html, linked
  from *Quotas for Amazon Bedrock*): the tokens-per-minute quota is reserved at request start from
  the input tokens plus ``max_tokens``, and settled at the end; some models count each output token
  more than once. AWS community article "Why Claude 4 API Hits Rate Limits: Token Burndown
  Explained" (Amazon employee, 2025-05-27): Claude 4 output tokens burn 5x; AWS agent-toolkit
  ``quota-health.md``: "5x for Claude 3.7+ models"; reservation is
  ``InputTokens + CacheWriteInputTokens + CacheReadInputTokens + maxTokens``, cache reads released
  at settlement.
- [CACHE-BEDROCK] Bedrock *Prompt caching for faster model inference* (prompt-caching.html): cache
  checkpoints need a model-specific minimum number of prefix tokens ("Anthropic Claude 3.7 Sonnet
  requires at least 1,024 tokens per cache checkpoint": the second checkpoint can follow after 2,048);
  a checkpoint below the minimum is ignored silently (inference succeeds, nothing is cached); the
  prefix must be identical between requests.
- [CACHE-ANTHROPIC] Anthropic prompt-caching docs (platform.claude.com): minimum cacheable prompt
  4,096 tokens for Claude Opus 4.5 / 4.6 and Haiku 4.5; 1,024 for Sonnet 4.x, Opus 4 / 4.1 and
  Sonnet 3.7; 2,048 for Haiku 3.5.
- [CW-METRICS] Bedrock runtime CloudWatch metrics: cache reads do not count toward TPM, cache
  writes do.
"""

from __future__ import annotations

GUIDANCE_AS_OF = "2026-11-30"

# Ordered: the first prefix that matches the bare foundation model id wins (longest first).
_OUTPUT_BURNDOWN: tuple[tuple[str, int], ...] = (
    ("anthropic.claude-3-7-sonnet", 5),
    ("anthropic.claude-opus-4", 5),
    ("anthropic.claude-sonnet-4", 5),
    ("anthropic.claude-haiku-4", 5),
)

_CACHE_MIN_TOKENS: tuple[tuple[str, int], ...] = (
    ("anthropic.claude-opus-4-5", 4096),
    ("anthropic.claude-opus-4-6", 4096),
    ("anthropic.claude-haiku-4-5", 4096),
    ("anthropic.claude-opus-4-1", 1024),
    ("anthropic.claude-opus-4-2025", 1024),
    ("anthropic.claude-sonnet-4", 1024),
    ("anthropic.claude-3-7-sonnet", 1024),
    ("anthropic.claude-3-5-haiku", 2048),
)


def _lookup(table: tuple[tuple[str, int], ...], model_id: str | None) -> int | None:
    if not model_id:
        return None
    return next((value for prefix, value in table if model_id.startswith(prefix)), None)


def output_burndown_rate(model_id: str | None) -> int | None:
    """Quota tokens one output token consumes (5 for Claude 3.7 Sonnet and Claude 4.x); None when the
    table does not know the model (check the Bedrock token-burndown page; most models count 1)."""
    return _lookup(_OUTPUT_BURNDOWN, model_id)


def cache_checkpoint_min_tokens(model_id: str | None) -> int | None:
    """Minimum prefix tokens per prompt-cache checkpoint for the model family; None when unknown."""
    return _lookup(_CACHE_MIN_TOKENS, model_id)


def token_guidance(model_id: str | None, max_output_tokens: int | None) -> list[str]:
    """Guidance sentences for the plan: output-token sizing, burndown and cache checkpoints."""
    rate = output_burndown_rate(model_id)
    lines: list[str] = []
    if max_output_tokens is None:
        lines.append(
            "set max_output_tokens (maxTokens / max_tokens on every request): Bedrock reserves input + "
            "max output tokens against the tokens-per-minute quota when a request starts, so leaving it "
            "at the model maximum throttles long before the quota is really used"
        )
    else:
        lines.append(
            f"send maxTokens={max_output_tokens} on every request: each request reserves its input tokens "
            f"+ {max_output_tokens} against the tokens-per-minute quota at start; the unused part is released "
            "when it ends"
        )
    if rate is not None and rate > 1:
        worst = f" (up to {max_output_tokens * rate} quota tokens per request at the cap)" if max_output_tokens else ""
        lines.append(
            f"{model_id} burns {rate} quota tokens per output token{worst}: size quota requests for output x{rate}"
        )
    elif rate is None:
        lines.append(
            "output-token burndown rate for this model is not in the library table "
            f"(as of {GUIDANCE_AS_OF}); check Bedrock 'How tokens are counted' before sizing quotas"
        )
    minimum = cache_checkpoint_min_tokens(model_id)
    where = (
        "put prompt-cache checkpoints right after the stable prefix (system prompt, tool definitions, "
        "shared documents), never after per-request content: any change before a checkpoint is a cache miss"
    )
    if minimum is not None:
        lines.append(
            f"{where}; each checkpoint needs at least {minimum} prefix tokens for this model "
            f"(2nd at {2 * minimum}), smaller prefixes are silently not cached"
        )
    else:
        lines.append(
            f"{where}; the minimum tokens per checkpoint for this model is not in the library table, "
            "see the Bedrock prompt-caching page (checkpoints below it are silently not cached)"
        )
    lines.append("cache reads (CacheReadInputTokens) do not count toward the tokens-per-minute quota; cache writes do")
    return lines
