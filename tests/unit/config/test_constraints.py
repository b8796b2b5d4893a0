"""Construct ids from names never collide, and the dashboard figures the plan checks match the real
dashboard (the corpus in tests/corpus checks every constraint end to end)."""

from __future__ import annotations

import pytest
from aws_cdk import App, Stack

from inference_constructs import aws_limits as limits
from inference_constructs._ids import construct_id
from inference_constructs.config import parse_config
from inference_constructs.config.constraints import DASHBOARD_FIXED_WIDGETS, dashboard_problems
from inference_constructs.observability import InferenceDashboard, MonitoredEndpoint, MonitoredProfile
from inference_constructs.spec import EndpointKind


@pytest.mark.parametrize(
    ("name", "expected"),
    [("acme-genai-chat", "AcmeGenaiChat"), ("team-a-sonnet", "TeamASonnet"), ("chat", "Chat")],
)
def test_canonical_names_keep_their_pascal_case_id(name: str, expected: str) -> None:
    # GIVEN names of lowercase words joined by single hyphens THEN the id is unchanged from earlier releases
    assert construct_id(name) == expected


@pytest.mark.parametrize(
    "names",
    [
        ["a-b", "a--b", "ab", "a-b-"],
        ["a-1b", "a1b", "a-1-b"],
        ["team a", "team-a", "Team-A", "team_a", "teamA", "TeamA"],
        ["x", "x-", "-x", "X"],
    ],
)
def test_distinct_names_get_distinct_ids(names: list[str]) -> None:
    # GIVEN names whose PascalCase forms meet WHEN given ids THEN every id is different
    ids = [construct_id(n) for n in names]
    assert len(set(ids)) == len(names), dict(zip(names, ids, strict=True))


def test_dashboard_widget_figure_matches_the_real_dashboard() -> None:
    # GIVEN the real dashboard with 3 GPU endpoints and 2 profiles WHEN its widgets are counted
    stack = Stack(App(), "S")
    endpoints = [
        MonitoredEndpoint(name=f"e{i}", variant_name="AllTraffic", kind=EndpointKind.REALTIME, gpu_count=1)
        for i in range(3)
    ]
    profiles = [MonitoredProfile(name=f"p{i}", profile_id=f"id{i}") for i in range(2)]
    dashboard = InferenceDashboard(stack, "D", endpoints=endpoints, profiles=profiles)
    # THEN it is the fixed part, a header and one graph per GPU endpoint, a header and one graph per profile
    assert len(dashboard.widgets) == DASHBOARD_FIXED_WIDGETS + (1 + 3) + (1 + 2)
    assert len(InferenceDashboard(Stack(App(), "T"), "D").widgets) == DASHBOARD_FIXED_WIDGETS


def test_fails_when_the_dashboard_would_exceed_its_widget_limit() -> None:
    config = parse_config("name: acme\n")
    room = limits.MAX_DASHBOARD_WIDGETS - DASHBOARD_FIXED_WIDGETS - 1
    assert dashboard_problems(config, room) == []
    (problem,) = dashboard_problems(config, room + 1)
    assert (problem.path, problem.code) == ("endpoints", "too_large")
    assert dashboard_problems(parse_config("name: acme\nobservability: {dashboard: false}\n"), 10_000) == []
