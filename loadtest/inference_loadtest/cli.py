"""Command line of the load tester: ``inference-loadtest run``, ``recommend-job`` and ``results``.

The same commands are ``python -m inference_constructs loadtest`` / ``recommend-job`` / ``results`` once this
distribution is installed (the library's ``loadtest`` extra): the library's command line hands them to
:func:`main`. :func:`add_commands` registers them on another argparse parser, :func:`run_command` runs one.
Nothing here imports boto3 or matplotlib until a command needs it.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from inference_constructs.errors import InferenceConfigError

EXIT_GATE = 1
"""A ``--gate`` was crossed (as ``diff``'s gates): the report is complete."""
EXIT_CONFIG_ERROR = 2
EXIT_AWS_ERROR = 3
"""AWS could not be reached or refused the caller (network, credentials, access): one message naming the target."""
EXIT_OUTPUT_FAILED = 4
"""The run finished and its results were written, but an output failed (the chart)."""
EXIT_INTERRUPTED = 130

CHART_SUFFIXES = (".png", ".svg", ".pdf")
"""What ``--chart`` writes (matplotlib picks the format from the suffix)."""


def main(argv: Sequence[str] | None = None, *, prog: str = "inference-loadtest", run_name: str = "run") -> int:
    """Run the command line; returns the exit code.

    ``prog`` and ``run_name`` name the program and the load-test command in usage and messages (the library's
    command line passes ``python -m inference_constructs`` and ``loadtest``).
    """
    parser = argparse.ArgumentParser(
        prog=prog, description="Load tests of deployed SageMaker endpoints and Bedrock profiles."
    )
    add_commands(parser.add_subparsers(dest="command", required=True), run_name=run_name)
    return run_command(parser.parse_args(argv))


def _aws_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("AWS (boto3's standard configuration applies: AWS_PROFILE, AWS_ENDPOINT_URL_*, ...)")
    g.add_argument("--region", help="default: the configured region")
    g.add_argument("--aws-profile", help="named profile of the shared config; default: the configured one")
    g.add_argument("--endpoint-url", help="service endpoint URL, e.g. a local test server; default: the AWS one")


def add_commands(sub: Any, *, run_name: str = "run") -> None:  # noqa: PLR0915 - one statement per option
    """Register the load test (as ``run_name``), ``recommend-job`` and ``results`` on an argparse subparsers object."""
    lt = sub.add_parser(
        run_name,
        help="measure TTFT, inter-token latency, throughput and cost per token of a deployed endpoint or profile",
        description="Load-test a SageMaker endpoint or a Bedrock profile. Needs a target (--endpoint or "
        "--profile) and a bound (--requests or --duration); prints the estimated request count first.",
    )
    target = lt.add_mutually_exclusive_group()
    target.add_argument("--endpoint", help="SageMaker endpoint name, or a plan endpoint name with --plan")
    target.add_argument("--profile", help="Bedrock inference profile ID or ARN, or a plan profile name with --plan")
    lt.add_argument("--plan", help="cdk.out/inference-plan.json or a config .yaml: format, price, scaling target")
    lt.add_argument("--format", choices=("auto", "tgi", "lmi", "openai"), default="auto")
    lt.add_argument(
        "--api", choices=("auto", "stream", "invoke", "async"), default="auto", help="SageMaker call; default: plan"
    )
    lt.add_argument("--async-input", help="async endpoints: s3://bucket/prefix/ for the request bodies")
    lt.add_argument("--async-poll", type=float, default=1.0, help="async endpoints: seconds between output polls")
    lt.add_argument("--concurrency", help="fixed-concurrency levels, e.g. 1,2,4,8 (default: 1 without --rate)")
    lt.add_argument("--rate", help="open-loop levels in requests/s, e.g. 0.5,2 (arrivals: --arrivals)")
    lt.add_argument(
        "--arrivals", choices=("poisson", "gamma", "constant"), default="poisson", help="open-loop arrival process"
    )
    lt.add_argument(
        "--burstiness", type=float, default=1.0, help="gamma shape: 1 Poisson, < 1 burstier, > 1 more regular"
    )
    lt.add_argument("--trace", help="replay a JSONL trace: {'offset_s', 'input_tokens', 'output_tokens'} a line")
    lt.add_argument("--find-rate", help="LOW:HIGH requests/s: search the highest open-loop rate holding the SLO")
    lt.add_argument("--find-rate-steps", type=int, default=6, help="levels the rate search runs at most (default 6)")
    lt.add_argument("--requests", type=int, help="measured requests per level")
    lt.add_argument("--duration", type=float, help="seconds per level (open loop: no request scheduled after it)")
    lt.add_argument("--runs", type=int, default=1, help="repeat the whole run K times: medians and 95%% t intervals")
    lt.add_argument("--warmup", type=int, default=0, help="requests per level excluded from statistics (default 0)")
    lt.add_argument("--input-tokens", default="128", help="MEAN or MEAN:STDDEV of synthetic prompts (default 128)")
    lt.add_argument("--output-tokens", default="128", help="MEAN or MEAN:STDDEV max output tokens (default 128)")
    lt.add_argument("--prompts", help="JSONL file: {'prompt': ..., 'max_tokens': ...} a line")
    lt.add_argument("--dataset", help="JSONL of prompts with checks (reference, regex, json_schema, judge): scored")
    lt.add_argument("--judge-profile", help="Bedrock profile ID or ARN of the judge model for judge checks")
    lt.add_argument("--prefix-tokens", type=int, help="shared-prefix workload: the common prefix's length in tokens")
    lt.add_argument("--prefix-share", type=float, default=0.5, help="share of requests with the prefix (default 0.5)")
    lt.add_argument("--turns", type=int, help="multi-turn workload: turns per conversation, each resending the history")
    lt.add_argument("--conversations", type=int, help="multi-turn: conversations (default: enough for a level)")
    lt.add_argument("--seed", type=int, default=0)
    lt.add_argument("--payload", help="InvokeEndpoint/async: send this file's bytes as every request (e.g. CSV)")
    lt.add_argument("--content-type", default="application/json", help="ContentType with --payload")
    lt.add_argument("--slo-ttft-ms", type=float, help="p90 time-to-first-token objective")
    lt.add_argument("--slo-itl-ms", type=float, help="p90 inter-token latency objective")
    lt.add_argument("--instances", type=int, help="instances in service during the test (default: plan capacity.min)")
    lt.add_argument("--price-per-hour", type=float, help="USD per instance hour (default: the plan's price)")
    lt.add_argument("--max-attempts", type=int, default=4, help="botocore attempts per request (default 4)")
    lt.add_argument("--max-in-flight", type=int, default=256, help="open loop: requests in flight at most")
    lt.add_argument(
        "--engine",
        choices=("auto", "async", "threads"),
        default="auto",
        help="auto: asyncio above 64 concurrent streams",
    )
    lt.add_argument("--json", action="store_true", help="print the JSON report instead of the table")
    lt.add_argument("--out", help="also write the JSON report to this file")
    lt.add_argument("--markdown", help="write a Markdown report to this file")
    lt.add_argument("--chart", help="write a PNG chart (needs matplotlib) to this file")
    lt.add_argument(
        "--gate",
        action="append",
        default=[],
        help="[LEVEL:]FIGURE OP NUMBER, e.g. 'ttft_ms.p90<=500' or '8:goodput_fraction>=0.9': exit 1 when crossed",
    )
    lt.add_argument("--requests-out", help="write one JSON line per request (every level, warm-up marked) here")
    lt.add_argument("--no-progress", action="store_true", help="no progress bar (default: one on a terminal)")
    _aws_options(lt)
    lt.set_defaults(handler=_loadtest)

    rj = sub.add_parser(
        "recommend-job",
        help="write (or --submit) a SageMaker Inference Recommender job that confirms a plan endpoint's host",
    )
    rj.add_argument("--plan", required=True, help="config .yaml (full shortlist) or cdk.out/inference-plan.json")
    rj.add_argument("--endpoint", required=True, help="plan endpoint name")
    rj.add_argument("--role-arn", required=True, help="IAM role Inference Recommender assumes")
    rj.add_argument("--payload-s3-uri", required=True, help="s3://bucket/key.tar.gz for the sample payload")
    rj.add_argument("--model-name", help="the deployed SageMaker model; default with --submit: looked up")
    rj.add_argument("--job-name", help="default: <endpoint>-<UTC time>")
    rj.add_argument("--slo-ttft-ms", type=float, default=1000.0)
    rj.add_argument("--slo-itl-ms", type=float, default=100.0)
    rj.add_argument("--max-tokens", type=int, default=128, help="output tokens the sample payload asks for")
    rj.add_argument("--max-invocations", type=int, default=300, help="stopping condition: requests per minute")
    rj.add_argument("--out", help="write the request JSON here (default: stdout)")
    rj.add_argument("--payload-out", help="write the sample payload .tar.gz here")
    rj.add_argument("--submit", action="store_true", help="upload the payload and create the job through boto3")
    _aws_options(rj)

    cp = sub.add_parser(
        "compare",
        help="two load-test reports (--out JSON) side by side: every level's figures, B - A, a chart",
        description="Compare two reports: two endpoints, two models, a Bedrock profile and a SageMaker endpoint.",
    )
    cp.add_argument("a", help="the first report (written by --out)")
    cp.add_argument("b", help="the second report")
    cp.add_argument("--label-a", default="A", help="name of the first report in tables and the chart")
    cp.add_argument("--label-b", default="B", help="name of the second report")
    cp.add_argument("--json", action="store_true", help="print the comparison as JSON")
    cp.add_argument("--out", help="also write the comparison JSON to this file")
    cp.add_argument("--markdown", help="write the comparison as Markdown to this file")
    cp.add_argument("--chart", help="write the comparison chart (needs matplotlib) to this file")
    cp.set_defaults(handler=_compare)

    rs = sub.add_parser("results", help="read a finished Inference Recommender job into a report")
    rs.add_argument("job_name")
    rs.add_argument("--json", action="store_true")
    _aws_options(rs)
    rs.set_defaults(handler=_results)
    rj.set_defaults(handler=_recommend_job, results_prog=rs.prog)


def run_command(args: argparse.Namespace) -> int:
    """Run a command registered by :func:`add_commands`; a user mistake prints one message and exits 2."""
    try:
        result: int = args.handler(args)
        return result
    except InferenceConfigError as exc:
        print(exc, file=sys.stderr)
        return EXIT_CONFIG_ERROR
    except Exception as exc:
        message = _aws_failure(exc, args)
        if message is None:
            raise
        print(message, file=sys.stderr)
        return EXIT_AWS_ERROR


def _target_text(args: argparse.Namespace) -> str:
    """What the command was pointed at, for an error message."""
    for attr, kind in (("endpoint", "endpoint"), ("profile", "profile"), ("job_name", "job")):
        value = getattr(args, attr, None)
        if value:
            where = f" at {args.endpoint_url}" if getattr(args, "endpoint_url", None) else ""
            return f"{kind} {value!r}{where}"
    return "AWS"


def _aws_failure(exc: BaseException, args: argparse.Namespace) -> str | None:
    """One line for a network, credential or access failure of botocore (None for anything else).

    botocore raises these from deep inside urllib3 with chained causes; the user needs what failed and where.
    """
    from inference_loadtest.runner import TargetUnreachable

    if isinstance(exc, TargetUnreachable):
        return f"{args.command}: {exc}"
    try:
        from botocore.exceptions import BotoCoreError, ClientError
    except ImportError:  # pragma: no cover - boto3 is a dependency of this distribution
        return None
    if not isinstance(exc, BotoCoreError | ClientError):
        return None
    detail = str(exc) or type(exc).__name__
    return f"{args.command}: cannot use {_target_text(args)}: {type(exc).__name__}: {detail}"


def _outputs(args: argparse.Namespace) -> list[tuple[str, str]]:
    names = ("out", "markdown", "chart", "requests_out")
    return [(f"--{n.replace('_', '-')}", getattr(args, n)) for n in names if getattr(args, n, None)]


def check_outputs(args: argparse.Namespace) -> None:
    """Before the first request: every output path can be written and ``--chart`` can be drawn.

    A run is not thrown away at the end because a folder is missing, two outputs name one file, or matplotlib
    is not installed.
    """
    seen: dict[Path, str] = {}
    for option, text in _outputs(args):
        path = Path(text)
        resolved = path.resolve()
        if resolved in seen:
            raise InferenceConfigError(f"{option}: {text!r} is also {seen[resolved]}; name a different file")
        seen[resolved] = option
        parent = path.parent
        if path.is_dir():
            raise InferenceConfigError(f"{option}: {text!r} is a directory; name a file")
        if not parent.is_dir():
            raise InferenceConfigError(f"{option}: the folder {str(parent)!r} does not exist; create it first")
        if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
            raise InferenceConfigError(f"{option}: {text!r} is not writable")
    if getattr(args, "chart", None):
        if Path(args.chart).suffix.lower() not in CHART_SUFFIXES:
            raise InferenceConfigError(
                f"--chart: {args.chart!r} is not allowed; use a file ending in {', '.join(CHART_SUFFIXES)}"
            )
        try:
            import matplotlib  # noqa: F401 - only whether it imports
        except ImportError:
            raise InferenceConfigError(
                "--chart: needs matplotlib, checked before the first request; install it with "
                "pip install 'inference-loadtest[chart]' (or drop --chart)"
            ) from None


def _require_credentials(args: argparse.Namespace) -> None:
    """No request is sent without credentials: every one would fail the same way."""
    import boto3
    from botocore.exceptions import NoCredentialsError

    if boto3.session.Session(profile_name=args.aws_profile).get_credentials() is None:
        raise NoCredentialsError()


def _numbers(text: str | None, option: str, kind: type[float] | type[int]) -> tuple[Any, ...]:
    if not text:
        return ()
    try:
        values = tuple(kind(v) for v in text.split(","))
    except ValueError:
        values = ()
    if not values or any(v <= 0 for v in values):
        raise InferenceConfigError(f"{option}: {text!r} is not allowed; use positive numbers separated by commas")
    return values


def _read_payload(path: str | None) -> bytes | None:
    if path is None:
        return None
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise InferenceConfigError(f"--payload: cannot read {path}: {exc.strerror}") from None


def _client_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    return {"region": args.region, "endpoint_url": args.endpoint_url, "aws_profile": args.aws_profile}


def _control_client(service: str, args: argparse.Namespace) -> Any:
    """A control-plane client (bedrock, sagemaker, s3) from the standard configuration."""
    from inference_loadtest.calls import make_client

    return make_client(service, pool=1, **_client_kwargs(args))


def _resolve_profile_arn(args: argparse.Namespace, name: str) -> str:
    bedrock = _control_client("bedrock", args)
    for page in bedrock.get_paginator("list_inference_profiles").paginate(typeEquals="APPLICATION"):
        for summary in page.get("inferenceProfileSummaries", ()):
            if summary.get("inferenceProfileName") == name:
                return str(summary["inferenceProfileArn"])
    raise InferenceConfigError(f"--profile: no application inference profile named {name!r} in this account/region")


def _rate_bounds(text: str | None) -> tuple[float, float] | None:
    if not text:
        return None
    low, _, high = text.partition(":")
    try:
        return float(low), float(high)
    except ValueError:
        raise InferenceConfigError(
            f"--find-rate: {text!r} is not allowed; use LOW:HIGH requests/s, e.g. 0.5:16"
        ) from None


def _prompts(args: argparse.Namespace, trace: Any) -> list[Any]:
    """The workload's prompts: a trace's, a file's, the shared-prefix or multi-turn ones, or synthetic ones."""
    from inference_loadtest import prompts as pr

    chosen = [
        name
        for name, on in (
            ("--prompts", args.prompts),
            ("--dataset", args.dataset),
            ("--trace", args.trace),
            ("--prefix-tokens", args.prefix_tokens),
            ("--turns", args.turns),
        )
        if on
    ]
    if len(chosen) > 1:
        raise InferenceConfigError(f"{chosen[1]}: not allowed with {chosen[0]}; choose one workload")
    if trace is not None:
        return pr.trace_prompts(trace)
    out_tokens = pr.Lengths.parse(args.output_tokens, option="--output-tokens")
    if args.prompts:
        return pr.jsonl_prompts(args.prompts, output_tokens=out_tokens, seed=args.seed)
    if args.dataset:
        from inference_loadtest.quality import read_dataset

        return read_dataset(args.dataset, output_tokens=out_tokens)
    in_tokens = pr.Lengths.parse(args.input_tokens, option="--input-tokens")
    count = max(64, (args.requests or 0) + args.warmup)
    if args.prefix_tokens:
        return pr.shared_prefix_prompts(
            count,
            prefix_tokens=args.prefix_tokens,
            share=args.prefix_share,
            input_tokens=in_tokens,
            output_tokens=out_tokens,
            seed=args.seed,
        )
    if args.turns:
        conversations = args.conversations or max(1, -(-count // args.turns))
        return pr.multi_turn_prompts(
            conversations, turns=args.turns, input_tokens=in_tokens, output_tokens=out_tokens, seed=args.seed
        )
    return pr.synthetic_prompts(count, input_tokens=in_tokens, output_tokens=out_tokens, seed=args.seed)


def _workload(args: argparse.Namespace) -> dict[str, Any]:
    if args.trace:
        return {"kind": "trace", "file": args.trace}
    if args.prompts:
        return {"kind": "prompts file", "file": args.prompts}
    if args.dataset:
        return {"kind": "dataset", "file": args.dataset, "judge_profile": args.judge_profile}
    base = {"input_tokens": args.input_tokens, "output_tokens": args.output_tokens}
    if args.prefix_tokens:
        return {"kind": "shared prefix", "prefix_tokens": args.prefix_tokens, "prefix_share": args.prefix_share, **base}
    if args.turns:
        return {"kind": "multi-turn", "turns": args.turns, "conversations": args.conversations, **base}
    return {"kind": "synthetic", **base}


def _run_record(args: argparse.Namespace) -> dict[str, Any]:
    """What the run was asked to do, saved with its results: every option, the seed, the tool's version."""
    from importlib import metadata

    try:
        version = metadata.version("inference-loadtest")
    except metadata.PackageNotFoundError:  # pragma: no cover - run from a source folder without installing
        version = None
    options = {k: v for k, v in sorted(vars(args).items()) if k not in ("handler", "results_prog")}
    return {
        "started_utc": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "tool_version": version,
        "seed": args.seed,
        "workload": _workload(args),
        "options": options,
    }


def _warmup_notes(args: argparse.Namespace, concurrency: tuple[int, ...]) -> list[str]:
    """A warm-up shorter than a level's concurrency measures that level's own ramp-up: say so."""
    if not concurrency or args.warmup >= max(concurrency):
        return []
    low = [c for c in concurrency if c > args.warmup]
    return [
        f"warm-up {args.warmup} is below the concurrency of level(s) {', '.join(map(str, low))}: their first "
        f"requests start together on cold connections and are measured; use --warmup {max(concurrency)}"
    ]


def _loadtest(args: argparse.Namespace) -> int:  # noqa: C901, PLR0912, PLR0915 - one branch per option
    from inference_loadtest import report as rep
    from inference_loadtest.arrivals import read_trace
    from inference_loadtest.calls import make_client
    from inference_loadtest.formats import StreamFormat
    from inference_loadtest.options import LoadOptions
    from inference_loadtest.runner import LoadTest, ProgressBar
    from inference_loadtest.stats import Slo, knee
    from inference_loadtest.target import Api, load_plan, resolve_target

    if not args.endpoint and not args.profile:
        raise InferenceConfigError("loadtest: no target; use --endpoint NAME or --profile ID_OR_ARN")
    if args.requests is None and args.duration is None and not args.trace:
        raise InferenceConfigError("loadtest: no bound; use --requests N (per level) and/or --duration SECONDS")
    if (args.requests is not None and args.requests < 1) or (args.duration is not None and args.duration <= 0):
        raise InferenceConfigError("--requests/--duration: must be positive")
    if args.runs < 1:
        raise InferenceConfigError(f"--runs: {args.runs} is not allowed; use 1 or more")
    check_outputs(args)
    from inference_loadtest.gates import Gate, crossed, evaluate

    gates = [Gate.parse(text) for text in args.gate]
    concurrency = _numbers(args.concurrency, "--concurrency", int)
    rates = _numbers(args.rate, "--rate", float)
    find_rate = _rate_bounds(args.find_rate)
    if find_rate and args.slo_ttft_ms is None and args.slo_itl_ms is None:
        raise InferenceConfigError("--find-rate: needs an SLO; use --slo-ttft-ms and/or --slo-itl-ms")
    trace = read_trace(args.trace) if args.trace else None
    if not concurrency and not rates and trace is None and not find_rate:
        concurrency = (1,)
    prompts = _prompts(args, trace)
    judge = None
    if any(p.check is not None and p.check.kind == "judge" for p in prompts):
        if not args.judge_profile:
            raise InferenceConfigError(
                f"--judge-profile: {args.dataset} has judge checks; name the Bedrock profile of the judge model"
            )
        from inference_loadtest.quality import BedrockJudge

        judge = BedrockJudge(
            make_client("bedrock-runtime", pool=1, region=args.region, aws_profile=args.aws_profile),
            args.judge_profile,
        )
    options = LoadOptions(
        prompts=prompts,
        concurrency=concurrency,
        rates_rps=rates,
        requests=args.requests,
        duration_s=args.duration,
        warmup=args.warmup,
        max_in_flight=args.max_in_flight,
        seed=args.seed,
        payload=_read_payload(args.payload),
        content_type=args.content_type,
        arrivals=args.arrivals,
        burstiness=args.burstiness,
        trace_offsets_s=None if trace is None else tuple(e.offset_s for e in trace),
        find_rate=find_rate,
        find_rate_steps=args.find_rate_steps,
    )
    plan = load_plan(args.plan) if args.plan else None
    target = resolve_target(
        endpoint=args.endpoint,
        profile=args.profile,
        plan=plan,
        fmt=StreamFormat(args.format),
        stream={"auto": None, "stream": True, "invoke": False, "async": None}[args.api],
        asynchronous=args.api == "async",
        instances=args.instances,
        price_per_hour_usd=args.price_per_hour,
    )
    if target.api is Api.ASYNC and not args.async_input:
        raise InferenceConfigError(
            f"--async-input: {target.identifier} is an async endpoint; name an s3://bucket/prefix/ for the inputs"
        )
    if options.payload is not None and target.api in (Api.STREAM, Api.CONVERSE_STREAM):
        raise InferenceConfigError("--payload: only for InvokeEndpoint or async endpoints; use --api invoke")
    _require_credentials(args)
    if target.profile_name:
        from dataclasses import replace

        target = replace(target, identifier=_resolve_profile_arn(args, target.profile_name), profile_name=None)
    estimate = options.estimated_requests()
    levels_text = f"{options.level_count()} level(s)"
    if trace is not None and args.requests is None:
        bound = f"{levels_text}, the trace's {len(trace)} requests"
    elif estimate is not None:
        bound = f"at most {estimate} requests ({levels_text} x ({args.requests} + {args.warmup} warm-up))"
        if args.duration:
            bound += f", each level stopping after {args.duration:g} s"
    else:
        bound = f"{levels_text} x {args.duration:g} s (the request count depends on the latency)"
    if args.runs > 1:
        bound += f", {args.runs} times"
    print(f"loadtest: {target.api.value} {target.identifier}: {bound}", file=sys.stderr)
    warnings = _warmup_notes(args, concurrency)
    for line in warnings:
        print(f"loadtest: {line}", file=sys.stderr)
    service = "bedrock-runtime" if target.api is Api.CONVERSE_STREAM else "sagemaker-runtime"
    pool = max([*concurrency, args.max_in_flight if options.open_loop() else 1])
    client = make_client(service, pool=pool, max_attempts=args.max_attempts, **_client_kwargs(args))
    slo = Slo(ttft_ms=args.slo_ttft_ms, itl_ms=args.slo_itl_ms)
    show = not args.no_progress and sys.stderr.isatty()
    progress = ProgressBar(sys.stderr) if show else None
    test = LoadTest(
        target,
        options,
        client=client,
        slo=slo,
        progress=progress,
        engine=args.engine,
        s3=_control_client("s3", args) if target.api is Api.ASYNC else None,
        async_input_s3_uri=args.async_input,
        async_poll_s=args.async_poll,
    )
    run = _run_record(args)
    runs: list[list[dict[str, Any]]] = []
    per_request: list[tuple[int, list[str], list[Any]]] = []
    searches: list[dict[str, Any] | None] = []
    for number in range(1, args.runs + 1):
        runs.append(test.run())
        if args.dataset:
            _score(runs[-1], test, prompts, judge)
        per_request.append((number, list(test.labels), list(test.results)))
        searches.append(test.rate_search)
        if test.interrupted:
            break
    levels = runs[0]
    notes = [rep.TIMING_NOTE, rep.TOKEN_COUNT_NOTE, rep.INPUT_TOKEN_NOTE, *warnings]
    if options.open_loop():
        notes.append(rep.SCHEDULE_NOTE)
    if target.pricing.usd_per_hour is None:
        notes.append(f"no cost per token: {target.pricing.source or 'no price'} (use --price-per-hour)")
    if target.api is Api.INVOKE:
        notes.append("InvokeEndpoint returns the whole response at once: TTFT equals e2e and there is no ITL")
    if target.api is Api.ASYNC:
        notes.append(
            f"async: e2e runs from InvokeEndpointAsync to the output object appearing in S3, polled every "
            f"{args.async_poll:g} s (its resolution), queueing included; TTFT equals e2e, no ITL"
        )
    report: dict[str, Any] = {
        "target": target.to_dict(),
        "detected_format": test.detected_format.value if test.detected_format else None,
        "slo": slo.to_dict(),
        "run": {**run, "load": options.to_dict()},
        "levels": levels,
        "knee": knee(
            levels,
            slo=slo,
            instances=target.pricing.instances,
            scaling_target=target.scaling_target,
            target_key=target.target_key,
        ),
        "rate_search": test.rate_search,
        "interrupted": test.interrupted,
        "notes": notes,
    }
    if len(runs) > 1:
        _combine_runs(report, runs, searches, target=target, slo=slo)
    if gates:
        report["gates"] = evaluate(gates, report)
    code = write_outputs(args, report, per_request)
    sys.stdout.write(rep.to_json(report) if args.json else rep.table(report))
    lines = crossed(report.get("gates", []))
    for line in lines:
        print(f"gate crossed: {line}", file=sys.stderr)
    if test.interrupted:
        return EXIT_INTERRUPTED
    return code or (EXIT_GATE if lines else 0)


def _score(levels: list[dict[str, Any]], test: Any, prompts: list[Any], judge: Any) -> None:
    """Score each level's responses against the dataset's checks and add the level's ``quality`` figures."""
    from inference_loadtest.quality import score_results, summary

    for level, results in zip(levels, test.results, strict=False):
        score_results(results, prompts, judge)
        level["quality"] = summary(results, pricing=test.target.pricing, duration_s=level["duration_s"])


def _combine_runs(
    report: dict[str, Any],
    runs: list[list[dict[str, Any]]],
    searches: list[dict[str, Any] | None],
    *,
    target: Any,
    slo: Any,
) -> None:
    """``--runs K``: the report's levels become the medians over the runs; ``runs`` holds every figure's interval,
    each run's levels, and the spread of the knee and of the rate search."""
    from inference_loadtest.repeats import INTERVAL, combine, interval, knee_spread
    from inference_loadtest.stats import knee

    medians, figures = combine(runs)
    knees = [
        knee(
            levels,
            slo=slo,
            instances=target.pricing.instances,
            scaling_target=target.scaling_target,
            target_key=target.target_key,
        )
        for levels in runs
    ]
    report["levels"] = medians
    report["knee"] = knee(
        medians,
        slo=slo,
        instances=target.pricing.instances,
        scaling_target=target.scaling_target,
        target_key=target.target_key,
    )
    spread = knee_spread(knees)
    if report["knee"] and spread and spread["per_instance"]:
        k = spread["per_instance"]
        report["knee"]["runs"] = spread
        report["knee"]["message"] += (
            f" (medians of {len(runs)} runs; the knee per instance ranged {k['min']:g}-{k['max']:g} over the runs"
            + ("" if k["ci95"] is None else f", 95% t interval {k['ci95'][0]:g}-{k['ci95'][1]:g}")
            + ")"
        )
    found = [s["highest_rate_holding_rps"] for s in searches if s and s["highest_rate_holding_rps"] is not None]
    report["runs"] = {
        "count": len(runs),
        "interval": INTERVAL,
        "seed": "the same seed (workload and arrival schedule) in every run",
        "figures": figures,
        "per_run_levels": runs,
        "knees": knees,
        "rate_searches": searches if any(searches) else None,
        "highest_rate_holding_rps": interval(found) if found else None,
    }
    report["notes"].append(
        f"levels show the median of each figure over {len(runs)} runs; runs.figures has each one's {INTERVAL}"
    )


def write_outputs(
    args: argparse.Namespace,
    report: dict[str, Any],
    per_request: list[tuple[int, list[str], list[Any]]] | None = None,
) -> int:
    """Write ``--out``, ``--requests-out`` and the Markdown report whatever happens to the chart; 1 when the chart
    failed (its message names the files that hold the results)."""
    from inference_loadtest import report as rep

    if args.out:
        Path(args.out).write_text(rep.to_json(report))
    if getattr(args, "requests_out", None) and per_request is not None:
        numbered = len(per_request) > 1
        text = "".join(
            rep.requests_jsonl(labels, results, run=number if numbered else None)
            for number, labels, results in per_request
        )
        Path(args.requests_out).write_text(text)
    chart = None
    failed = None
    if args.chart:
        try:
            chart = str(rep.chart(report, args.chart))
        except Exception as exc:  # a drawing failure must not cost the measured results
            failed = f"{type(exc).__name__}: {exc}"
    if args.markdown:
        link = None if chart is None else os.path.relpath(chart, Path(args.markdown).parent)
        Path(args.markdown).write_text(rep.markdown(report, chart=link))
    if failed:
        kept = [text for _, text in _outputs(args) if text != args.chart]
        where = f"; the results are in {', '.join(kept)}" if kept else "; the results follow on stdout"
        print(f"--chart: could not draw {args.chart}: {failed}{where}", file=sys.stderr)
        return EXIT_OUTPUT_FAILED
    return 0


def _compare(args: argparse.Namespace) -> int:
    from inference_loadtest import compare as cmp
    from inference_loadtest import report as rep

    check_outputs(args)
    result = cmp.compare(cmp.read_report(args.a), cmp.read_report(args.b), label_a=args.label_a, label_b=args.label_b)
    chart = None
    code = 0
    if args.chart:
        try:
            result["chart"] = cmp.chart(cmp.chart_data(result), args.chart, title=f"{args.label_a} vs {args.label_b}")
            chart = args.chart
        except Exception as exc:  # the comparison itself is kept
            print(f"--chart: could not draw {args.chart}: {type(exc).__name__}: {exc}", file=sys.stderr)
            code = EXIT_OUTPUT_FAILED
    if args.out:
        Path(args.out).write_text(rep.to_json(result))
    if args.markdown:
        link = None if chart is None else os.path.relpath(chart, Path(args.markdown).parent)
        Path(args.markdown).write_text(cmp.markdown(result, chart=link))
    sys.stdout.write(rep.to_json(result) if args.json else cmp.table(result))
    return code


def _recommend_job(args: argparse.Namespace) -> int:
    from inference_loadtest import recommender
    from inference_loadtest.formats import StreamFormat, format_for_image
    from inference_loadtest.target import load_plan, plan_endpoint

    plan = load_plan(args.plan)
    _, entry = plan_endpoint(plan, args.endpoint)
    name = str(entry.get("name"))
    if Path(args.plan).suffix in (".yaml", ".yml"):
        candidates = recommender.shortlist(args.plan, name)
    else:
        candidates = [str(entry["instance_type"])]
        print(
            "recommend-job: the plan document names only the chosen host; pass the config .yaml for the shortlist",
            file=sys.stderr,
        )
    endpoint_name = f"{plan.get('name')}-{name}"
    sagemaker = None
    model_name = args.model_name
    if args.submit:
        sagemaker = _control_client("sagemaker", args)
        model_name = model_name or recommender.resolve_model_name(sagemaker, endpoint_name)
    if not model_name:
        raise InferenceConfigError(
            "--model-name: required without --submit (the model has a generated name; with --submit it is looked "
            "up from the endpoint)"
        )
    fmt = format_for_image((entry.get("container") or {}).get("image")) or StreamFormat.AUTO
    payload = recommender.sample_payload_archive(
        fmt, prompt="Summarize the benefits of load testing.", max_tokens=args.max_tokens
    )
    job_name = args.job_name or f"{endpoint_name}-{dt.datetime.now(dt.UTC):%Y%m%d%H%M%S}"[-63:].lstrip("-")
    request = recommender.build_job(
        plan=plan,
        endpoint=name,
        job_name=job_name,
        role_arn=args.role_arn,
        model_name=model_name,
        sample_payload_url=args.payload_s3_uri,
        instance_types=candidates,
        slo_ttft_ms=args.slo_ttft_ms,
        slo_itl_ms=args.slo_itl_ms,
        max_tokens=args.max_tokens,
        max_invocations_per_minute=args.max_invocations,
    )
    if args.payload_out:
        Path(args.payload_out).write_bytes(payload)
    text = recommender.to_json(request)
    if args.out:
        Path(args.out).write_text(text)
    if args.submit:
        s3 = _control_client("s3", args)
        arn = recommender.submit(request, sagemaker=sagemaker, s3=s3, payload=payload)
        print(f"created {arn}; read it with: {args.results_prog} {job_name}")
    elif not args.out:
        sys.stdout.write(text)
    return 0


def _results(args: argparse.Namespace) -> int:
    from inference_loadtest import recommender

    sagemaker = _control_client("sagemaker", args)
    job = sagemaker.describe_inference_recommendations_job(JobName=args.job_name)
    report = recommender.results_report(job)
    sys.stdout.write(recommender.to_json(report) if args.json else recommender.results_table(report))
    return 0
