"""Load tests of what was deployed: TTFT, inter-token latency, throughput, goodput, cost per token.

The ``inference-loadtest`` distribution (installed by the library's ``loadtest`` extra). Command line:
``inference-loadtest run`` / ``recommend-job`` / ``results``, the same as ``python -m inference_constructs
loadtest`` / ``recommend-job`` / ``results`` (docs/loadtest.md). From Python::

    from inference_loadtest import Lengths, LoadOptions, LoadTest, load_plan, resolve_target
    from inference_loadtest import synthetic_prompts

    target = resolve_target(endpoint="chat", profile=None, plan=load_plan("cdk.out/inference-plan.json"))
    prompts = synthetic_prompts(64, input_tokens=Lengths(256), output_tokens=Lengths(128))
    levels = LoadTest(target, LoadOptions(prompts=prompts, concurrency=(1, 4, 16), requests=32)).run()

Open-loop arrival processes and trace replay are :mod:`inference_loadtest.arrivals`; the cache workloads
:func:`shared_prefix_prompts` and :func:`multi_turn_prompts`; quality scoring :mod:`inference_loadtest.quality`;
repeated runs :mod:`inference_loadtest.repeats`; gates :mod:`inference_loadtest.gates`; two reports side by side
:mod:`inference_loadtest.compare`. The local wire-protocol server for tests is :mod:`inference_loadtest.server`.
Nothing here imports boto3 or matplotlib until a test runs or a chart is drawn.
"""

from inference_loadtest.arrivals import Arrivals, dispersion, read_trace
from inference_loadtest.calls import make_client
from inference_loadtest.formats import StreamFormat
from inference_loadtest.gates import Gate
from inference_loadtest.options import LoadOptions
from inference_loadtest.prompts import (
    Check,
    Lengths,
    Prompt,
    jsonl_prompts,
    multi_turn_prompts,
    shared_prefix_prompts,
    synthetic_prompts,
    trace_prompts,
)
from inference_loadtest.quality import BedrockJudge, read_dataset
from inference_loadtest.runner import LoadTest, TargetUnreachable
from inference_loadtest.stats import Pricing, RequestResult, Slo, knee, level_summary
from inference_loadtest.target import Api, Target, load_plan, resolve_target

__all__ = [
    "Api",
    "Arrivals",
    "BedrockJudge",
    "Check",
    "Gate",
    "Lengths",
    "LoadOptions",
    "LoadTest",
    "Pricing",
    "Prompt",
    "RequestResult",
    "Slo",
    "StreamFormat",
    "Target",
    "TargetUnreachable",
    "dispersion",
    "jsonl_prompts",
    "knee",
    "level_summary",
    "load_plan",
    "make_client",
    "multi_turn_prompts",
    "read_dataset",
    "read_trace",
    "resolve_target",
    "shared_prefix_prompts",
    "synthetic_prompts",
    "trace_prompts",
]
