"""The first-use benchmark compares like with like: each family's L2 and L1 builders make the same resources."""

from __future__ import annotations

import io
from collections import Counter

import pytest
from aws_cdk import App, Stack
from aws_cdk.assertions import Template

from benchmarks import first_use


def _types(family: str, kind: str) -> Counter[str]:
    stack = Stack(App(), "FirstUse")
    for i in range(3):
        first_use.FAMILIES[family](stack, i, kind)
    resources = Template.from_stack(stack).to_json()["Resources"]
    return Counter(r["Type"] for r in resources.values())


@pytest.mark.parametrize("family", sorted(first_use.FAMILIES))
def test_l2_and_l1_builders_make_the_same_resources(family: str) -> None:
    l2, l1 = _types(family, "l2"), _types(family, "l1")
    assert l2 == l1
    assert sum(l2.values()) >= 3


def test_report_names_every_family_with_its_difference(monkeypatch: pytest.MonkeyPatch) -> None:
    walls = {("iam", "l2"): 0.30, ("iam", "l1"): 0.10, ("sns", "l2"): 0.20, ("sns", "l1"): 0.15}
    counts: list[int] = []

    def measure(f: str, k: str, count: int) -> dict[str, float]:
        counts.append(count)
        return {"wall_s": walls[(f, k)], "cpu_s": 2 * walls[(f, k)]}

    monkeypatch.setattr(first_use, "_measure", measure)
    report = first_use.run(["iam", "sns"], repeat=2, log=io.StringIO(), count=8)
    assert set(counts) == {8}
    assert "synthesize 8 instances" in report
    rows = {line.split()[0]: line.split() for line in report.splitlines()[3:]}
    assert rows["iam"][-2:] == ["200", "400"]
    assert rows["sns"][-2:] == ["50", "100"]
