"""Parsing the model string into a ModelSource, and the ARNs it needs (pure, no CDK)."""

from __future__ import annotations

import importlib

import pytest

from inference_constructs.bedrock import GEOGRAPHIES, ModelSource, ProfileSourceKind
from inference_constructs.errors import InferenceConfigError
from inference_constructs.spec import ModelSourceKind

SONNET = "anthropic.claude-sonnet-4-5-20250929-v1:0"
ARGS = {"partition": "aws", "region": "us-east-1", "account": "111122223333"}


@pytest.mark.parametrize(
    ("value", "kind", "model_id", "geography"),
    [
        (SONNET, ProfileSourceKind.FOUNDATION_MODEL, SONNET, None),
        (f"arn:aws:bedrock:us-east-1::foundation-model/{SONNET}", ProfileSourceKind.FOUNDATION_MODEL, SONNET, None),
        (f"us.{SONNET}", ProfileSourceKind.CROSS_REGION_PROFILE, SONNET, "us"),
        (f"eu.{SONNET}", ProfileSourceKind.CROSS_REGION_PROFILE, SONNET, "eu"),
        (f"apac.{SONNET}", ProfileSourceKind.CROSS_REGION_PROFILE, SONNET, "apac"),
        (f"jp.{SONNET}", ProfileSourceKind.CROSS_REGION_PROFILE, SONNET, "jp"),
        (f"au.{SONNET}", ProfileSourceKind.CROSS_REGION_PROFILE, SONNET, "au"),
        (f"ca.{SONNET}", ProfileSourceKind.CROSS_REGION_PROFILE, SONNET, "ca"),
        (f"us-gov.{SONNET}", ProfileSourceKind.CROSS_REGION_PROFILE, SONNET, "us-gov"),
        (f"global.{SONNET}", ProfileSourceKind.CROSS_REGION_PROFILE, SONNET, "global"),
        (
            f"arn:aws:bedrock:eu-west-1:111122223333:inference-profile/eu.{SONNET}",
            ProfileSourceKind.CROSS_REGION_PROFILE,
            SONNET,
            "eu",
        ),
        ("amazon.nova-lite-v1:0", ProfileSourceKind.FOUNDATION_MODEL, "amazon.nova-lite-v1:0", None),
    ],
)
def test_parse_recognises_kind_model_and_geography(
    value: str, kind: ProfileSourceKind, model_id: str, geography: str | None
) -> None:
    # GIVEN a model string WHEN it is parsed
    source = ModelSource.parse(value)
    # THEN kind, bare model id and geography are recognised
    assert (source.kind, source.model_id, source.geography_prefix) == (kind, model_id, geography)


@pytest.mark.parametrize(
    ("value", "leaves"),
    [(SONNET, False), (f"us.{SONNET}", True), (f"global.{SONNET}", True), (f"eu.{SONNET}", True)],
)
def test_leaves_region_only_for_cross_region_profiles(value: str, leaves: bool) -> None:
    # GIVEN a source WHEN asked whether requests can leave the deploy Region THEN only profiles can
    assert ModelSource.parse(value).leaves_region is leaves


def test_us_profile_grants_system_profile_and_model_in_every_us_region() -> None:
    # GIVEN a us. profile
    source = ModelSource.parse(f"us.{SONNET}")
    # WHEN its invoke ARNs are built for a deploy Region
    arns = source.invoke_resource_arns(**ARGS)
    # THEN the system profile in the deploy Region and the model in each US destination Region
    assert arns == (
        f"arn:aws:bedrock:us-east-1:111122223333:inference-profile/us.{SONNET}",
        f"arn:aws:bedrock:us-east-1::foundation-model/{SONNET}",
        f"arn:aws:bedrock:us-east-2::foundation-model/{SONNET}",
        f"arn:aws:bedrock:us-west-1::foundation-model/{SONNET}",
        f"arn:aws:bedrock:us-west-2::foundation-model/{SONNET}",
    )


def test_eu_profile_grants_model_in_every_eu_destination_region() -> None:
    # GIVEN an eu. profile WHEN its invoke ARNs are built THEN one model ARN per EU table Region
    arns = ModelSource.parse(f"eu.{SONNET}").invoke_resource_arns(**{**ARGS, "region": "eu-west-1"})
    assert arns[0] == f"arn:aws:bedrock:eu-west-1:111122223333:inference-profile/eu.{SONNET}"
    assert arns[1:] == tuple(
        f"arn:aws:bedrock:{r}::foundation-model/{SONNET}" for r in GEOGRAPHIES["eu"].destination_regions
    )


def test_global_profile_grants_regionless_and_any_region_model() -> None:
    # GIVEN a global. profile WHEN its invoke ARNs are built
    source = ModelSource.parse(f"global.{SONNET}")
    # THEN the Region-less global model ARN and the any-Region model ARN are granted
    assert source.invoke_resource_arns(**ARGS) == (
        f"arn:aws:bedrock:us-east-1:111122223333:inference-profile/global.{SONNET}",
        f"arn:aws:bedrock:::foundation-model/{SONNET}",
        f"arn:aws:bedrock:*::foundation-model/{SONNET}",
    )
    assert source.grants_any_region


def test_foundation_model_grants_only_the_model_in_the_deploy_region() -> None:
    # GIVEN a plain foundation model WHEN its invoke ARNs are built THEN only the deploy-Region model
    assert ModelSource.parse(SONNET).invoke_resource_arns(**ARGS) == (
        f"arn:aws:bedrock:us-east-1::foundation-model/{SONNET}",
    )


def test_unknown_geography_arn_falls_back_to_any_region() -> None:
    # GIVEN a system profile ARN whose prefix the table does not know
    arn = f"arn:aws:bedrock:sa-east-1:111122223333:inference-profile/sa.{SONNET}"
    source = ModelSource.parse(arn)
    # WHEN its ARNs are built THEN the given ARN plus the model in every Region
    assert source.invoke_resource_arns(**ARGS) == (arn, f"arn:aws:bedrock:*::foundation-model/{SONNET}")
    assert source.destination_regions() is None


def test_explicit_arn_is_used_as_copy_from() -> None:
    # GIVEN an explicit foundation model ARN WHEN the CopyFrom ARN is built THEN it is used as given
    arn = f"arn:aws:bedrock:eu-central-1::foundation-model/{SONNET}"
    assert ModelSource.parse(arn).copy_from_arn(**ARGS) == arn


def test_id_copy_from_resolves_in_deploy_region() -> None:
    # GIVEN a profile id WHEN the CopyFrom ARN is built THEN it is the system profile in the deploy Region
    assert ModelSource.parse(f"us.{SONNET}").copy_from_arn(**ARGS) == (
        f"arn:aws:bedrock:us-east-1:111122223333:inference-profile/us.{SONNET}"
    )


def test_destination_regions_of_foundation_model_is_the_deploy_region() -> None:
    # GIVEN a foundation model WHEN destination Regions are asked THEN the deploy Region (unknown: None)
    source = ModelSource.parse(SONNET)
    assert (source.destination_regions("eu-west-1"), source.destination_regions()) == (("eu-west-1",), None)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("Anthropic Claude", "is not a foundation model id or system profile id"),
        ("claude", "is not a foundation model id or system profile id"),
        ("us.", "after 'us'. is not a foundation model id"),
        ("arn:aws:s3:::bucket/key", "is not a bedrock ARN"),
        (
            "arn:aws:bedrock:us-east-1:111122223333:application-inference-profile/abc123",
            "is an application inference profile, which cannot be copied",
        ),
        ("arn:aws:bedrock:us-east-1:111122223333:custom-model/abc", "names a bedrock custom-model"),
        ("", "is not a model id or ARN"),
    ],
)
def test_fails_on_malformed_model(value: str, message: str) -> None:
    # GIVEN a malformed model WHEN parsed THEN one error names the key and the problem
    with pytest.raises(InferenceConfigError, match=f"model: .*{message}"):
        ModelSource.parse(value)


def test_fails_with_the_callers_key_path() -> None:
    # GIVEN a config path WHEN a malformed model is parsed THEN the error names that path
    with pytest.raises(InferenceConfigError, match=r"bedrock\.profiles\[1\]\.model: "):
        ModelSource.parse("bad model", path="bedrock.profiles[1].model")


@pytest.mark.parametrize("module", ["inference_constructs.bedrock", "inference_constructs.bedrock.model_source"])
def test_the_old_name_of_profile_source_kind_warns_and_is_the_same_enum(module: str) -> None:
    # GIVEN code written against the old name, imported from where it was exported
    # WHEN ModelSourceKind is read there
    with pytest.warns(DeprecationWarning, match="use inference_constructs.bedrock.ProfileSourceKind"):
        old = getattr(importlib.import_module(module), "ModelSourceKind")  # noqa: B009 - the read is what warns
    # THEN it is ProfileSourceKind itself, and not the SageMaker model's source kind
    assert old is ProfileSourceKind
    assert old is not ModelSourceKind
