"""Are the library's decisions optimal? Host choice and Savings Plan commitment against independent checks.

Run ``python -m benchmarks.optimality`` (or ``python -m benchmarks.run`` for every benchmark).

Host choice. For each scenario of ``scenarios.yaml``, :func:`inference_constructs.sizing.choose_host`
is compared with

- an exhaustive oracle written here from the documented memory model (``docs/sizing.md`` §1-2): every
  row of the catalog is tested on its own with this module's arithmetic; only the documented constants
  and the serving stack's accelerator rule (``Serving.accelerators``) come from the library. The price
  ratio chosen/oracle must be 1.00;
- naive choices people make: the SageMaker SDK's name heuristic ("7b"/"13b" in the model id ->
  ml.g5.xlarge, else ml.m5.large), the instance the model was trained on (given per scenario), and
  a bigger size of the chosen family (the 4-GPU 12xlarge of a 1-GPU pick, the next multi-device size
  of a Neuron or multi-GPU pick, 4x the vCPUs of a CPU pick). Each is checked with the oracle's fit
  test: a *misfit* cannot hold (or load, or run) the model; otherwise its overspend against the
  cheapest fit is reported.

Commitment. On weekly capacity profiles (flat, diurnal, weekday-only, spiky, the default platform),
:func:`inference_constructs.cost.commitment.recommend_commitment` is compared with a brute-force
grid search written here and with committing to the average and to the peak.
"""

from __future__ import annotations

import math
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from benchmarks import oracle
from inference_constructs.catalog import Catalog, InstanceType, load_catalog
from inference_constructs.cost.commitment import (
    CapacitySchedule,
    recommend_commitment,
    savings_plan_rate,
    weekly_profile,
)
from inference_constructs.errors import InferenceConfigError
from inference_constructs.sizing import (
    choose_host,
)
from inference_constructs.spec import (
    Accelerator,
    AcceleratorChoice,
    DType,
    ModelArchitecture,
    ModelSpec,
    Serving,
)
from inference_constructs.units import HOURS_PER_MONTH

SCENARIOS_FILE = Path(__file__).with_name("scenarios.yaml")
_GIB = 2.0**30
_BYTES = {"fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 0.5}
_LLM_SERVING = {"lmi", "tgi", "vllm", "neuron"}


# --------------------------------------------------------------------------------------------- scenarios


@dataclass(frozen=True)
class Scenario:
    """One model and its constraints, as published in ``scenarios.yaml``."""

    name: str
    model_id: str
    serving: Serving
    accelerator: AcceleratorChoice = AcceleratorChoice.AUTO
    parameters_billion: float | None = None
    dtype: str = "bf16"
    context: int = 4096
    concurrency: int = 8
    architecture: tuple[int, int, int] | None = None
    max_devices: int | None = None
    trained_on: str = ""

    @property
    def model(self) -> ModelSpec:
        """The library's input for this scenario."""
        arch = ModelArchitecture(*self.architecture) if self.architecture else None
        return ModelSpec(
            id=self.model_id,
            parameters_billion=self.parameters_billion,
            dtype=DType(self.dtype),
            max_context_tokens=self.context,
            max_concurrent_sequences=self.concurrency,
            architecture=arch,
        )


def load_scenarios(path: Path = SCENARIOS_FILE, *, key: str = "scenarios") -> list[Scenario]:
    """The scenarios of a YAML file (the ``scenarios:`` list, or ``refused:`` for those the sizing refuses; keys as
    in :class:`Scenario`, ``id`` for the model id)."""
    doc: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    out = []
    for raw in doc.get(key, ()):
        arch = raw.get("architecture")
        out.append(
            Scenario(
                name=raw["name"],
                model_id=raw["id"],
                serving=Serving(raw["serving"]),
                accelerator=AcceleratorChoice(raw.get("accelerator", "auto")),
                parameters_billion=raw.get("parameters_billion"),
                dtype=raw.get("dtype", "bf16"),
                context=int(raw.get("context", 4096)),
                concurrency=int(raw.get("concurrency", 8)),
                architecture=(int(arch[0]), int(arch[1]), int(arch[2])) if arch else None,
                max_devices=raw.get("max_devices"),
                trained_on=raw.get("trained_on", ""),
            )
        )
    return out


# --------------------------------------------------------------------------------------------- the oracle


@dataclass(frozen=True)
class OracleFit:
    """Whether one host can serve a scenario, by this module's own arithmetic."""

    fits: bool
    why: str = ""


def _uses_kv_cache(s: Scenario) -> bool:
    # docs/sizing.md: LLM stacks, and triton/custom given a parameter count, are sized with a KV cache.
    sized_as_llm = s.serving.value in ("triton", "custom") and s.parameters_billion is not None
    return s.serving.value in _LLM_SERVING or sized_as_llm


def oracle_fit(s: Scenario, inst: InstanceType) -> OracleFit:
    """Can ``inst`` serve scenario ``s``? Accelerator rule of the serving stack, device limit, burstable,
    estimated catalog facts, the image's architecture and CUDA, accelerator memory at some tensor-parallel degree,
    and host RAM to load the weights."""
    if inst.accelerator not in s.serving.accelerators(s.accelerator):
        allowed = "/".join(sorted(a.value for a in s.serving.accelerators(s.accelerator)))
        return OracleFit(False, f"{inst.accelerator.value} host; needs {allowed}")
    if s.max_devices is not None and inst.devices > s.max_devices:
        return OracleFit(False, f"{inst.devices} devices > {s.max_devices}")
    if inst.burstable:
        return OracleFit(False, "burstable")
    if inst.estimated or inst.device_estimated:
        return OracleFit(False, "estimated catalog facts: never chosen automatically")
    if not oracle.image_runs(s.serving, inst, explicit=False):
        return OracleFit(False, "the serving image does not run on its architecture or GPU generation")
    if not oracle.fits(s.model, inst, _uses_kv_cache(s), s.serving):
        return OracleFit(False, "memory, host RAM or engine rules (benchmarks/oracle.py)")
    return OracleFit(True)


def oracle_cheapest(s: Scenario, catalog: Catalog) -> InstanceType | None:
    """The cheapest catalog host that serves ``s``, by exhaustive search (no ordering assumed)."""
    best: InstanceType | None = None
    for inst in catalog.instances:
        if oracle_fit(s, inst).fits and (best is None or inst.price_per_hour_usd < best.price_per_hour_usd):
            best = inst
    return best


# --------------------------------------------------------------------------------------------- naive choices


def sdk_heuristic(model_id: str) -> str:
    """The SageMaker Python SDK's default-instance guess from a model name."""
    name = model_id.lower()
    return "ml.g5.xlarge" if "7b" in name or "13b" in name else "ml.m5.large"


def bigger_size(chosen: InstanceType, catalog: Catalog) -> InstanceType | None:
    """A bigger size of the chosen family: the cheapest same-family host with more devices (a multi-GPU
    or multi-device size), or on CPU the cheapest with at least 4x the vCPUs. None when there is none."""
    family = [i for i in catalog.instances if i.family == chosen.family and i is not chosen]
    if chosen.accelerator is Accelerator.CPU:
        bigger = [i for i in family if i.vcpus >= 4 * chosen.vcpus]
    else:
        bigger = [i for i in family if i.devices > chosen.devices]
    return min(bigger, key=lambda i: i.price_per_hour_usd) if bigger else None


@dataclass(frozen=True)
class NaiveResult:
    """A naive host for one scenario: misfit, or its overspend against the cheapest fit."""

    strategy: str
    instance_type: str | None
    misfit: bool
    why: str
    overspend_percent: float | None


@dataclass(frozen=True)
class HostResult:
    """The library's choice against the oracle and the naive choices for one scenario."""

    scenario: Scenario
    chosen: str
    chosen_price: float
    oracle: str
    oracle_price: float
    naive: tuple[NaiveResult, ...]

    @property
    def ratio(self) -> float:
        """Chosen price / exhaustive cheapest price (1.00 means optimal)."""
        return self.chosen_price / self.oracle_price


NAIVE_STRATEGIES = ("sdk-name", "trained-on", "bigger-size")


def _naive(s: Scenario, strategy: str, name: str | None, catalog: Catalog, best: float) -> NaiveResult:
    if name is None:
        return NaiveResult(strategy, None, False, "no such size", None)
    inst = catalog.get(name)
    if inst is None:
        return NaiveResult(strategy, name, True, "not a hosting instance", None)
    fit = oracle_fit(s, inst)
    if not fit.fits:
        return NaiveResult(strategy, name, True, fit.why, None)
    return NaiveResult(strategy, name, False, "", 100.0 * (inst.price_per_hour_usd / best - 1.0))


def evaluate_scenario(s: Scenario, catalog: Catalog) -> HostResult:
    """Library choice, oracle choice and naive choices for one scenario."""
    decision = choose_host(
        s.model,
        serving=s.serving,
        accelerator=s.accelerator,
        catalog=catalog,
        max_devices=s.max_devices,
        quantization_hint=False,
        path=s.name,
    )
    best = oracle_cheapest(s, catalog)
    if best is None:
        raise InferenceConfigError(f"{s.name}: the oracle finds no host although the library chose one")
    bigger = bigger_size(decision.instance, catalog)
    price = best.price_per_hour_usd
    naive = (
        _naive(s, "sdk-name", sdk_heuristic(s.model_id), catalog, price),
        _naive(s, "trained-on", s.trained_on or None, catalog, price),
        _naive(s, "bigger-size", bigger.name if bigger else None, catalog, price),
    )
    return HostResult(s, decision.instance_type, decision.price_per_hour_usd, best.name, price, naive)


# --------------------------------------------------------------------------------------------- commitment


@dataclass(frozen=True)
class CommitmentCase:
    """A named weekly capacity profile built from endpoint schedules."""

    name: str
    schedules: tuple[CapacitySchedule, ...]


def commitment_cases() -> list[CommitmentCase]:
    """Flat, diurnal, weekday-only, spiky and the default platform's chat endpoint."""
    weekdays = "MON-FRI"
    return [
        CommitmentCase("flat 2x1$/h", (CapacitySchedule(1.0, 2, 2),)),
        CommitmentCase(
            "diurnal 1-3 x 1.52$/h",
            (CapacitySchedule(1.52, 1, 3, floors=(("cron(0 7 ? * * *)", 3), ("cron(0 19 ? * * *)", 1))),),
        ),
        CommitmentCase(
            "weekday-only 0-2 x 2.8$/h",
            (
                CapacitySchedule(
                    2.8, 0, 2, floors=((f"cron(0 8 ? * {weekdays} *)", 2), (f"cron(0 18 ? * {weekdays} *)", 0))
                ),
            ),
        ),
        CommitmentCase("spiky 1-10 x 1.22$/h", (CapacitySchedule(1.222, 1, 10),)),
        CommitmentCase(
            "default chat 1-4 x 1.515$/h",
            (
                CapacitySchedule(
                    1.515, 1, 4, floors=((f"cron(0 7 ? * {weekdays} *)", 2), (f"cron(0 19 ? * {weekdays} *)", 1))
                ),
            ),
        ),
        CommitmentCase(
            "mixed fleet (3 endpoints)",
            (
                CapacitySchedule(7.79, 1, 2),
                CapacitySchedule(1.222, 0, 4, floors=((f"cron(0 6 ? * {weekdays} *)", 2), ("cron(0 22 ? * * *)", 0))),
                CapacitySchedule(0.102, 2, 6),
            ),
        ),
    ]


def _cost(profile: Sequence[float], commitment: float, discount: float) -> float:
    """This module's own Savings Plan bill of one week: the commitment every hour plus uncovered usage."""
    covered = commitment / (1.0 - discount)
    return sum(commitment + max(0.0, u - covered) for u in profile)


def brute_force_commitment(profile: Sequence[float], discount: float, steps: int = 20_000) -> float:
    """The best commitment on a uniform grid of ``steps`` levels from 0 to the peak commitment."""
    top = max(profile, default=0.0) * (1.0 - discount)
    best_c, best = 0.0, _cost(profile, 0.0, discount)
    for k in range(1, steps + 1):
        c = top * k / steps
        cost = _cost(profile, c, discount)
        if cost < best - 1e-12:
            best_c, best = c, cost
    return best_c


@dataclass(frozen=True)
class CommitmentResult:
    """Monthly cost (730 h) of each commitment strategy for one profile."""

    case: str
    discount: float
    commitments: dict[str, float] = field(default_factory=dict)
    monthly_cost: dict[str, float] = field(default_factory=dict)

    @property
    def ratio_to_brute_force(self) -> float:
        """Recommended monthly cost / brute-force monthly cost (<= 1.00: as good as the best grid point)."""
        return self.monthly_cost["recommended"] / self.monthly_cost["brute-force"]


COMMITMENT_STRATEGIES = ("recommended", "brute-force", "average", "peak", "on-demand")


def evaluate_commitment(case: CommitmentCase, *, steps: int = 20_000) -> CommitmentResult:
    """The library's recommendation against brute force, average and peak for one profile."""
    rec = recommend_commitment(list(case.schedules))
    d = rec.rate.discount
    profile = weekly_profile(list(case.schedules))
    commitments = {
        "recommended": rec.recommended_usd_per_hour,
        "brute-force": brute_force_commitment(profile, d, steps),
        "average": statistics.fmean(profile) * (1 - d),
        "peak": max(profile) * (1 - d),
        "on-demand": 0.0,
    }
    scale = HOURS_PER_MONTH / len(profile)
    monthly = {k: _cost(profile, c, d) * scale for k, c in commitments.items()}
    return CommitmentResult(case.name, d, commitments, monthly)


# --------------------------------------------------------------------------------------------- report


@dataclass(frozen=True)
class OptimalityReport:
    """Everything the optimality benchmark measured."""

    hosts: tuple[HostResult, ...]
    commitments: tuple[CommitmentResult, ...]
    grid_steps: int = 20_000

    @property
    def all_optimal(self) -> bool:
        """Every chosen host costs the same as the exhaustive cheapest fit."""
        return all(math.isclose(h.ratio, 1.0, rel_tol=1e-9) for h in self.hosts)


def run(
    scenarios: Sequence[Scenario] | None = None, *, catalog: Catalog | None = None, steps: int = 20_000
) -> OptimalityReport:
    """Evaluate every scenario and commitment case."""
    cat = catalog or load_catalog()
    items = load_scenarios() if scenarios is None else scenarios
    hosts = tuple(evaluate_scenario(s, cat) for s in items)
    commitments = tuple(evaluate_commitment(c, steps=steps) for c in commitment_cases())
    return OptimalityReport(hosts, commitments, steps)


def _cell(n: NaiveResult) -> str:
    if n.instance_type is None:
        return "-"
    short = n.instance_type.removeprefix("ml.")
    if n.misfit:
        return f"{short} MISFIT({n.why})"
    assert n.overspend_percent is not None
    return f"{short} +{n.overspend_percent:.0f}%"


def _table(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def naive_summary(report: OptimalityReport) -> list[list[str]]:
    """Per naive strategy: misfits, and the overspend of the ones that fit (median, mean, max)."""
    rows = [["strategy", "misfits", "fits", "median overspend", "mean overspend", "max overspend"]]
    n = len(report.hosts)
    for i, strategy in enumerate(NAIVE_STRATEGIES):
        results = [h.naive[i] for h in report.hosts if h.naive[i].instance_type is not None]
        over = [r.overspend_percent for r in results if r.overspend_percent is not None]
        misfits = sum(1 for r in results if r.misfit)
        rows.append(
            [
                strategy,
                f"{misfits}/{len(results)}",
                f"{len(over)}/{n}",
                f"+{statistics.median(over):.0f}%" if over else "-",
                f"+{statistics.fmean(over):.0f}%" if over else "-",
                f"+{max(over):.0f}%" if over else "-",
            ]
        )
    return rows


def format_report(report: OptimalityReport) -> str:
    """The optimality tables as printed text."""
    rows = [["scenario", "library", "$/h", "oracle", "ratio", "sdk-name", "trained-on", "bigger-size"]]
    for h in report.hosts:
        rows.append(
            [
                h.scenario.name,
                h.chosen.removeprefix("ml."),
                f"{h.chosen_price:.3f}",
                h.oracle.removeprefix("ml."),
                f"{h.ratio:.2f}",
                *(_cell(n) for n in h.naive),
            ]
        )
    ratios = [h.ratio for h in report.hosts]
    lines = [
        f"Host choice: {len(report.hosts)} scenarios, library vs exhaustive oracle: ratio min {min(ratios):.2f} "
        f"max {max(ratios):.2f} ({'all optimal' if report.all_optimal else 'NOT OPTIMAL'})",
        _table(rows),
        "",
        "Naive choices (misfit = cannot hold, load or run the model; overspend vs the cheapest fit)",
        _table(naive_summary(report)),
        "",
    ]
    d = report.commitments[0].discount if report.commitments else 0.0
    crow = [["profile", *(f"{k} $/mo" for k in COMMITMENT_STRATEGIES), "rec/brute", "avg/rec", "peak/rec"]]
    for c in report.commitments:
        m = c.monthly_cost
        crow.append(
            [
                c.case,
                *(f"{m[k]:,.0f}" for k in COMMITMENT_STRATEGIES),
                f"{c.ratio_to_brute_force:.4f}",
                f"{m['average'] / m['recommended']:.2f}",
                f"{m['peak'] / m['recommended']:.2f}",
            ]
        )
    rate = savings_plan_rate(1, "no-upfront")
    lines += [
        f"Savings Plan commitment ({rate.term_years} y {rate.payment.value}, discount {100 * d:.0f}%; monthly cost "
        f"= 730 h of the weekly profile; brute force = {report.grid_steps:,}-level grid)",
        _table(crow),
    ]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Print the optimality tables; exit 1 if a chosen host is not the cheapest fit."""
    del argv
    report = run()
    sys.stdout.write(format_report(report))
    worst = max(c.ratio_to_brute_force for c in report.commitments)
    return 0 if report.all_optimal and worst <= 1.0 + 1e-9 else 1


if __name__ == "__main__":
    sys.exit(main())
