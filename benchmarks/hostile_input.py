"""Time and peak memory of ``plan`` on the largest inputs up to the loader's caps.

Run ``python -m benchmarks.hostile_input [--repeat K]``. Each input is written to a temporary file and
planned by ``python -m inference_constructs plan FILE --json`` in a fresh process, K times; the table gives
the median and the range of wall time and of the process's peak resident memory (interpreter start and
imports included: what a user or a pipeline waits for), and of the same load, plan and JSON rendering in
this process (imports done: the part the input decides). Target: under 2 s of the process's CPU time and
300 MB for every input (wall time is printed too; on a shared machine it includes waiting for a core).

Inputs: a billion-laughs alias bomb (9 levels of 9 aliases, 10^9 values when expanded), a file just under
the size cap (1000 endpoints with every key written, padded to the cap), the endpoint cap with scheduled
floors on every instance-backed endpoint (the heaviest plan), a file 5x over the size cap, and nesting at
libyaml's own depth limit.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from benchmarks.run import machine
from inference_constructs.config import load_config
from inference_constructs.config.load import MAX_FILE_BYTES
from inference_constructs.errors import InferenceConfigError
from inference_constructs.plan import plan_platform

TARGET_SECONDS = 2.0
TARGET_MB = 300.0


def alias_bomb() -> str:
    """369 bytes that expand to 10^9 values."""
    lines = ["name: acme", 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, cur in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{cur}: &{cur} [{','.join([f'*{prev}'] * 9)}]")
    return "\n".join(lines) + "\n"


def _endpoint(i: int, *, full: bool) -> str:
    return _endpoint_body(i, full=full) + f"    stack: {i // 25 + 1}\n"  # 25 a stack stays under the resource limit


def _endpoint_body(i: int, *, full: bool) -> str:
    kind = i % 4
    schedule = (
        "    scaling:\n      schedule:\n"
        '        - {cron: "cron(0 7 ? * MON-FRI *)", min: 2}\n        - {cron: "cron(0 19 ? * MON-FRI *)", min: 1}\n'
    )
    if kind == 1:
        return (
            f"  - name: e{i}\n    type: serverless\n    serving: sklearn\n"
            '    model: {source: s3, s3_uri: "s3://acme-ml/m.tar.gz"}\n'
            "    serverless: {memory_mb: 2048, max_concurrency: 20, provisioned_concurrency: 0}\n"
        )
    if kind == 3:
        return (
            f"  - name: e{i}\n    type: multi-model\n    serving: xgboost\n    model: {{source: s3}}\n"
            '    capacity: {min: 1, max: 3}\n    multi_model: {model_data_prefix: "s3://acme-ml/p/", cache: true}\n'
        )
    body = (
        f"  - name: e{i}\n    type: {'realtime' if kind == 0 else 'async'}\n    serving: lmi\n"
        "    model:\n      source: huggingface\n      id: NousResearch/Meta-Llama-3.1-8B-Instruct\n"
        "      parameters_billion: 8\n      dtype: bf16\n      max_context_tokens: 8192\n"
        "      max_concurrent_sequences: 16\n      architecture: {layers: 32, kv_heads: 8, head_dim: 128}\n"
        f"    capacity: {{min: {1 if kind == 0 else 0}, max: 4}}\n"
    )
    if full:
        body += "    deployment: {strategy: blue-green, rollback_on_alarms: true}\n    network_isolation: false\n"
    return body + (schedule if kind == 0 else "")


def max_endpoints() -> str:
    """The endpoint cap (1000), a quarter each real-time with scheduled floors, async, serverless, multi-model."""
    return "name: acme\nobservability: {dashboard: false}\nendpoints:\n" + "".join(
        _endpoint(i, full=False) for i in range(1000)
    )


def max_size_file() -> str:
    """1000 endpoints with more keys written, padded with a comment to just under the size cap."""
    text = "name: acme\nobservability: {dashboard: false}\nendpoints:\n" + "".join(
        _endpoint(i, full=True) for i in range(1000)
    )
    room = MAX_FILE_BYTES - len(text.encode()) - 3
    if room < 0:
        raise RuntimeError(f"the full 1000-endpoint file is {len(text)} bytes, over the cap")
    return text + "#" + "x" * room + "\n"


def over_cap() -> str:
    """5x the size cap."""
    return "name: acme\n#" + "x" * (5 * MAX_FILE_BYTES) + "\n"


def deepest() -> str:
    """1000 levels of flow lists: libyaml's own limit."""
    return "name: acme\nx: " + "[" * 999 + "]" * 999 + "\n"


INPUTS: dict[str, Callable[[], str]] = {
    "alias bomb (369 B, 10^9 values)": alias_bomb,
    "max-size file (1000 endpoints, padded to the cap)": max_size_file,
    "max endpoints (1000, floors on 250)": max_endpoints,
    "5x the size cap": over_cap,
    "nesting at libyaml's limit": deepest,
}


# The child reports its own peak (VmHWM is per address space and starts again at exec; getrusage's maxrss
# would include the pages this benchmark process had when it forked).
_CHILD = (
    "import sys\n"
    "from inference_constructs.__main__ import main\n"
    "code = main(sys.argv[1:])\n"
    "sys.stderr.write(next(l for l in open('/proc/self/status') if l.startswith('VmHWM')))\n"
    "sys.exit(code)\n"
)


def measure(path: Path) -> tuple[float, float, float, int]:
    """Wall seconds, CPU seconds (user + system), peak RSS in MB and exit code of one ``plan --json`` process
    on ``path``. CPU time is what the process itself spent: on a shared machine wall time also counts the
    time it waited for a core."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, "plan", str(path), "--json"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    peak_kb = int(proc.stderr.strip().splitlines()[-1].split()[1])
    return elapsed, cpu, peak_kb / 1024, proc.returncode


def in_process(path: Path) -> float:
    """Seconds of loading, planning and rendering ``path`` in this process (imports already done)."""
    start = time.perf_counter()
    try:
        plan_platform(load_config(path)).to_json_text()
    except InferenceConfigError as exc:
        json.dumps(exc.to_json())
    return time.perf_counter() - start


def main(argv: Sequence[str] | None = None) -> int:
    """Print one table; exit 1 when an input misses the target."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.hostile_input", description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=7, help="runs per input (default 7)")
    args = parser.parse_args(argv)
    rows = []
    missed = False
    with tempfile.TemporaryDirectory() as tmp:
        for label, make in INPUTS.items():
            path = Path(tmp) / "input.yaml"
            path.write_text(make(), encoding="utf-8")
            runs = [measure(path) for _ in range(args.repeat)]
            inner = [in_process(path) for _ in range(args.repeat)]
            seconds = [r[0] for r in runs]
            cpu = [r[1] for r in runs]
            mb = [r[2] for r in runs]
            codes = sorted({r[3] for r in runs})
            med_s, med_mb = statistics.median(seconds), statistics.median(mb)
            missed |= statistics.median(cpu) > TARGET_SECONDS or med_mb > TARGET_MB
            rows.append(
                f"| {label} | {path.stat().st_size:,} | {'/'.join(map(str, codes))} | "
                f"{med_s:.2f} ({min(seconds):.2f}-{max(seconds):.2f}) | "
                f"{statistics.median(cpu):.2f} ({min(cpu):.2f}-{max(cpu):.2f}) | "
                f"{statistics.median(inner):.3f} ({min(inner):.3f}-{max(inner):.3f}) | "
                f"{med_mb:.0f} ({min(mb):.0f}-{max(mb):.0f}) |"
            )
    print(
        f"plan on hostile input, {args.repeat} runs each: median (min-max); target < {TARGET_SECONDS} s, "
        f"< {TARGET_MB:.0f} MB"
    )
    print(machine())
    print("| input | bytes | exit | process wall s | process CPU s | in-process wall s | process peak RSS MB |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
