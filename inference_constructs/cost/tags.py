"""Apply cost tags once, and fail synth when a taggable resource lacks a required key."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

import jsii
from aws_cdk import Annotations, CfnResource, IAspect, TagManager, Tags
from constructs import IConstruct

from inference_constructs.cost.capacity_tags import validate_cost_tags
from inference_constructs.errors import ProblemCollector


def apply_cost_tags(
    scope: IConstruct, tags: Mapping[str, str], *, path: str = "tags", exclude_resource_types: Sequence[str] = ()
) -> None:
    """Tag every taggable resource under ``scope`` (normally the App) with ``tags``.

    Parameters
    ----------
    scope:
        App, stack or construct whose resources get the tags.
    tags:
        Tag key to value, e.g. the config's ``tags`` block or :func:`capacity_tags` output.
    path:
        Key path for problem messages. Default: ``tags``.
    exclude_resource_types:
        CloudFormation types that do not get the tags, e.g. ``AWS::ApplicationAutoScaling::ScalableTarget`` for
        tags whose values change often (every change updates the resource). Default: none.

    Raises
    ------
    InferenceConfigError
        Listing every key or value AWS would reject.
    """
    problems = ProblemCollector()
    validate_cost_tags(tags, path, problems)
    problems.raise_if_any()
    tagger = Tags.of(scope)  # once per scope, not per key: each is a round trip to the jsii kernel
    for key, value in tags.items():
        tagger.add(key, value, exclude_resource_types=list(exclude_resource_types) or None)


@jsii.implements(IAspect)
class RequireCostTags:
    """Read-only aspect: an error on every taggable resource that lacks one of ``keys``.

    Register it after the tags, with read-only priority, so the tags are already applied::

        Aspects.of(app).add(RequireCostTags(["team", "cost-center"]), priority=AspectPriority.READONLY)

    Parameters
    ----------
    keys:
        Cost allocation tag keys every taggable resource must carry.
    """

    def __init__(self, keys: Sequence[str]) -> None:
        self._keys = tuple(dict.fromkeys(keys))

    @property
    def keys(self) -> tuple[str, ...]:
        """The required keys."""
        return self._keys

    def visit(self, node: IConstruct) -> None:
        """Add an error annotation to ``node`` when it is a taggable resource missing a key."""
        manager = _tag_manager(node)
        if manager is None:
            return
        present = manager.tag_values()
        missing = [key for key in self._keys if key not in present]
        if missing:
            Annotations.of(node).add_error(
                f"missing cost allocation tags: {', '.join(missing)}; add them with apply_cost_tags() or Tags.of()"
            )


def _tag_manager(node: IConstruct) -> TagManager | None:
    """The tag manager of a taggable CloudFormation resource, or None.

    Newer L1 resources (e.g. ``AWS::Bedrock::ApplicationInferenceProfile``) implement ``ITaggableV2``
    (``cdk_tag_manager``); for those ``TagManager.is_taggable`` fails in jsii instead of answering, so V2 is
    checked first.
    """
    if not isinstance(node, CfnResource):
        return None
    if TagManager.is_taggable_v2(node):
        return cast(TagManager, node.cdk_tag_manager)  # type: ignore[attr-defined]
    if TagManager.is_taggable(node):
        return cast(TagManager, node.tags)  # type: ignore[attr-defined]
    return None
