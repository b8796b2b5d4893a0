"""Dated table: cross-Region inference geography -> destination Regions.

Pure Python (no ``aws_cdk`` import). A system-defined cross-Region inference profile is named
``<geography>.<foundation model id>``; Bedrock routes a request sent to it from the source Region
to any destination Region of that geography. IAM must allow ``foundation-model/<id>`` in every
destination Region ("If you specify an inference profile in Resource you must also specify the
foundation model in each Region associated with it", Bedrock *Prerequisites for inference profiles*).

Destination Regions differ per model and per source Region (AWS: *Supported Regions and models for
inference profiles*, "some inference profiles route to different destination Regions depending on
the source Region"). This table therefore holds, per geography, the UNION of the destination
Regions documented for that geography, so a grant built from it covers every model of the
geography; it grants more Regions than one model may need, never fewer. Refresh it when AWS adds a
Region to a geography (``GetInferenceProfile`` returns the exact list for one profile: its
``models[].modelArn`` name each destination Region).

Sources (read 2026-11):

- [CRIS-SUPPORT] docs.aws.amazon.com/bedrock/latest/userguide/inference-profiles-support.html
  ("The destination Regions for Global cross-Region inference profiles include all commercial
  Regions").
- [GEO-CRIS] docs.aws.amazon.com/bedrock/latest/userguide/geographic-cross-region-inference.html
  (requests stay inside the geography; prompts and outputs may leave the source Region).
- [GLOBAL-CRIS] docs.aws.amazon.com/bedrock/latest/userguide/global-cross-region-inference.html
  (IAM for global profiles: the profile, the Regional model and the Region-less global model ARN
  ``arn:aws:bedrock:::foundation-model/<id>``).
- [BDA-CRIS] docs.aws.amazon.com/bedrock/latest/userguide/bda-cris.html (per-geography Region lists
  for us/eu/apac: us-east-1, us-east-2, us-west-1, us-west-2; eu-central-1, eu-north-1, eu-south-1,
  eu-south-2, eu-west-1, eu-west-3; ap-northeast-1..3, ap-south-1..2, ap-southeast-1, -2, -4).
- [CDK-ALPHA] aws/aws-cdk ``@aws-cdk/aws-bedrock-alpha`` v2.275
  ``cross-region-inference-profile.ts`` ``CrossRegionInferenceProfileRegion`` member docs (eu adds
  eu-west-2 and eu-central-2; apac adds ap-southeast-3/5/7, ap-east-2 and me-central-1; jp, au,
  us-gov lists). Used as a cross-check, not copied.
- [CA-SECONDARY] ``ca.`` profiles: no AWS page with the Region list was found; public
  infrastructure code grants ``ca-central-1`` and ``ca-west-1``. Treat as UNCONFIRMED.
- [CA-SOURCE] AWS Machine Learning blog, "Accelerate generative AI innovation in Canada with Amazon
  Bedrock cross-Region inference" (2025-11): ``us.`` profiles (Claude Sonnet 4.5, Haiku 4.5) are called
  from Canada (Central) ``ca-central-1`` and routed to US destination Regions.

**Source Regions.** A system profile exists only in its *source* Regions (the Regions a request naming it may
be sent from; [CRIS-SUPPORT] "Source Region" / "Destination Region"), and an application profile copies it by
ARN in the deploy Region, so CreateInferenceProfile fails outside them. :attr:`Geography.source_regions` is, per
geography, the destination Regions plus the extra source Regions documented above (``us``: ``ca-central-1``).
It is a union over the geography's models (each model's own list is on its model page and may be shorter):
UNCONFIRMED per model, and a Region outside it is refused. ``global.`` profiles have no fixed list
([CRIS-SUPPORT] names them per model; [GLOBAL-CRIS] routes to commercial Regions only): they are refused in
Regions outside the ``aws`` partition (GovCloud, China) and otherwise not checked.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

TABLE_AS_OF = "2026-11-30"
"""Date the geography table was last checked against the sources in this module's docstring."""


@dataclass(frozen=True)
class Geography:
    """One cross-Region inference geography (the prefix of a system-defined profile id).

    Parameters
    ----------
    prefix:
        Profile id prefix without the dot, e.g. ``"us"``, ``"eu"``, ``"global"``.
    description:
        Human-readable name of the area.
    destination_regions:
        Regions Bedrock may route a request to, sorted. Empty for ``global`` (any commercial Region).
    any_commercial_region:
        True for ``global``: requests may be served in any commercial Region worldwide.
    sources:
        Keys of the sources (module docstring) that support the Region list.
    """

    prefix: str
    description: str
    destination_regions: tuple[str, ...]
    any_commercial_region: bool = False
    sources: tuple[str, ...] = ()
    extra_source_regions: tuple[str, ...] = ()

    @property
    def source_regions(self) -> tuple[str, ...]:
        """Regions the geography's profiles can be called (and copied) from, sorted: the destination Regions plus
        documented extra source Regions. Empty for ``global`` (no fixed list; see the module docstring)."""
        return tuple(sorted({*self.destination_regions, *self.extra_source_regions}))

    @property
    def leaves_source_region(self) -> bool:
        """Every cross-Region geography may serve a request outside the Region it was sent to."""
        return True


def _geo(
    prefix: str,
    description: str,
    regions: tuple[str, ...],
    sources: tuple[str, ...],
    *,
    any_region: bool = False,
    extra_sources: tuple[str, ...] = (),
) -> Geography:
    return Geography(prefix, description, tuple(sorted(regions)), any_region, sources, tuple(sorted(extra_sources)))


GEOGRAPHIES: MappingProxyType[str, Geography] = MappingProxyType(
    {
        g.prefix: g
        for g in (
            _geo(
                "us",
                "United States",
                ("us-east-1", "us-east-2", "us-west-1", "us-west-2"),
                ("BDA-CRIS", "CDK-ALPHA", "CA-SOURCE"),
                extra_sources=("ca-central-1",),
            ),
            _geo(
                "eu",
                "European Union area",
                (
                    "eu-central-1",
                    "eu-central-2",
                    "eu-north-1",
                    "eu-south-1",
                    "eu-south-2",
                    "eu-west-1",
                    "eu-west-2",
                    "eu-west-3",
                ),
                ("BDA-CRIS", "CDK-ALPHA"),
            ),
            _geo(
                "apac",
                "Asia Pacific (includes Middle East (UAE) me-central-1)",
                (
                    "ap-east-2",
                    "ap-northeast-1",
                    "ap-northeast-2",
                    "ap-northeast-3",
                    "ap-south-1",
                    "ap-south-2",
                    "ap-southeast-1",
                    "ap-southeast-2",
                    "ap-southeast-3",
                    "ap-southeast-4",
                    "ap-southeast-5",
                    "ap-southeast-7",
                    "me-central-1",
                ),
                ("BDA-CRIS", "CDK-ALPHA"),
            ),
            _geo("jp", "Japan", ("ap-northeast-1", "ap-northeast-3"), ("CDK-ALPHA",)),
            _geo("au", "Australia", ("ap-southeast-2", "ap-southeast-4"), ("CDK-ALPHA",)),
            _geo("ca", "Canada", ("ca-central-1", "ca-west-1"), ("CA-SECONDARY",)),
            _geo("us-gov", "AWS GovCloud (US)", ("us-gov-east-1", "us-gov-west-1"), ("CDK-ALPHA",)),
            _geo("global", "Global (any commercial Region)", (), ("CRIS-SUPPORT", "GLOBAL-CRIS"), any_region=True),
        )
    }
)
"""Known geographies by profile-id prefix."""


def geography_for_prefix(prefix: str) -> Geography | None:
    """Return the geography whose profile ids start with ``<prefix>.``, or None when unknown."""
    return GEOGRAPHIES.get(prefix)


NON_COMMERCIAL_PREFIXES = ("cn-", "us-gov-", "us-iso", "eusc-")
"""Region-name prefixes outside the ``aws`` (commercial) partition: China, GovCloud, ISO, European Sovereign Cloud.
A ``global.`` profile routes to commercial Regions only ([GLOBAL-CRIS]), so it is refused there."""
