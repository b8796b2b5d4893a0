"""One command for every benchmark: ``python -m benchmarks.run [--quick] [--repeat K]`` (or ``bash benchmarks/run.sh``).

Prints the machine, then the optimality tables (host choice vs an exhaustive oracle and naive choices;
Savings Plan commitment vs brute force, average and peak), then the synth tables (library vs a
hand-written plain-L1 baseline of the same resources; scaling in N; ``plan`` time). Synth figures are
ratios measured in this one run on a possibly shared machine; see docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import subprocess
import sys
from collections.abc import Sequence
from importlib import metadata

from benchmarks import optimality, synth


def _first(path: str, prefix: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith(prefix):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "?"


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "?"


def machine() -> str:
    """One line naming the machine and the toolchain the figures come from."""
    try:
        node = subprocess.run(["node", "--version"], capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        node = "?"
    mem = _first("/proc/meminfo", "MemTotal")
    mem_gib = f"{int(mem.split()[0]) / 2**20:.0f} GiB" if mem[:1].isdigit() else "?"
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    return (
        f"Machine: {os.cpu_count()} cores ({_first('/proc/cpuinfo', 'model name')}), {mem_gib} RAM, "
        f"load {load}; Python {platform.python_version()}, Node {node}, aws-cdk-lib {_version('aws-cdk-lib')}, "
        f"cdk-nag {_version('cdk-nag')}; {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the optimality and synth benchmarks and print one report; exit 1 if a decision is not optimal."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="synth side by side at N=10 and N=30 only")
    parser.add_argument("--repeat", type=int, default=3, help="synth runs per side and N; the median counts")
    parser.add_argument(
        "--baseline",
        choices=synth.BASELINES,
        default="python",
        help="plain-L1 baseline re-emitter (default python: typed L1 classes from Python, as hand-written)",
    )
    args = parser.parse_args(argv)
    print(machine(), flush=True)
    print(flush=True)
    report = optimality.run(steps=2_000 if args.quick else 20_000)
    sys.stdout.write(optimality.format_report(report))
    print(flush=True)
    if args.quick:
        synth_report = synth.run(compare_ns=(10, 30), repeat=args.repeat, baseline=args.baseline, log=sys.stderr)
    else:
        synth_report = synth.run(repeat=args.repeat, baseline=args.baseline, log=sys.stderr)
    sys.stdout.write(synth.format_report(synth_report))
    commitments_ok = all(c.ratio_to_brute_force <= 1.0 + 1e-9 for c in report.commitments)
    return 0 if report.all_optimal and commitments_ok else 1


if __name__ == "__main__":
    sys.exit(main())
