"""Package exports: construct names resolve lazily, so the pure decisions import without aws_cdk."""

from __future__ import annotations

import pytest

PACKAGES = ["hosting", "scaling", "bedrock", "cost", "observability"]


@pytest.mark.parametrize("package", PACKAGES)
def test_every_name_in_all_resolves_and_is_listed_by_dir(package: str) -> None:
    module = __import__(f"inference_constructs.{package}", fromlist=["__all__"])
    missing = [name for name in module.__all__ if getattr(module, name, None) is None]
    assert missing == []
    assert set(module.__all__) <= set(dir(module))


def test_fails_with_attribute_error_on_an_unknown_name() -> None:
    from inference_constructs import hosting

    with pytest.raises(AttributeError, match="has no attribute 'NoSuchThing'"):
        _ = hosting.NoSuchThing  # type: ignore[attr-defined]
