"""``Guardrail``: an ``AWS::Bedrock::Guardrail`` with a numbered ``AWS::Bedrock::GuardrailVersion`` to enforce.

A profile enforces a guardrail through IAM (see :func:`.guardrails.guarded_invoke_statements`); the
identifier callers send is ``<guardrail ARN>:<version>``, so a numbered version is created with the
guardrail and re-created (new number) whenever its policy changes.
"""

from __future__ import annotations

from dataclasses import dataclass

from aws_cdk import Aws, Fn
from aws_cdk import aws_bedrock as bedrock
from constructs import Construct

from inference_constructs.bedrock.guardrail_plan import GuardrailSpec, check_guardrail
from inference_constructs.bedrock.model_source import raise_if_problems


@dataclass(frozen=True)
class GuardrailReference:
    """A guardrail version to enforce: its ARN (no version) and version number (tokens in a template)."""

    arn: str
    version: str

    @property
    def identifier(self) -> str:
        """``<ARN>:<version>``: the ``bedrock:GuardrailIdentifier`` value callers must send."""
        return Fn.join(":", [self.arn, self.version])

    @classmethod
    def existing(cls, guardrail_id: str, version: str) -> GuardrailReference:
        """A guardrail created elsewhere in the deploy account and Region, by id and numeric version."""
        arn = f"arn:{Aws.PARTITION}:bedrock:{Aws.REGION}:{Aws.ACCOUNT_ID}:guardrail/{guardrail_id}"
        return cls(arn=arn, version=version)


class Guardrail(Construct):
    """A Bedrock guardrail from a :class:`GuardrailSpec`, plus the numbered version profiles enforce.

    Parameters
    ----------
    construct_id:
        Construct id; the guardrail is ``Resource``, its version ``Version``.
    spec:
        Filters, denied topics, PII entities, grounding thresholds and messages (not an existing id).
    kms_key_arn:
        KMS key that encrypts the guardrail at rest. Default: Bedrock encrypts it with an AWS-owned key.
    path:
        Key path for problem messages. Default: ``guardrail``.

    Raises
    ------
    InferenceConfigError
        Listing every problem of ``spec`` with its key path.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        spec: GuardrailSpec,
        kms_key_arn: str | None = None,
        path: str = "guardrail",
    ) -> None:
        super().__init__(scope, construct_id)
        problems = check_guardrail(spec, path=path)
        if spec.is_existing:
            problems.append(f"{path}: references an existing guardrail; use GuardrailReference.existing instead")
        raise_if_problems(problems)
        cfn = bedrock.CfnGuardrail
        self.resource = cfn(
            self,
            "Resource",
            name=spec.name,
            description=spec.description,
            blocked_input_messaging=spec.blocked_input_messaging,
            blocked_outputs_messaging=spec.blocked_outputs_messaging,
            kms_key_arn=kms_key_arn,
            content_policy_config=cfn.ContentPolicyConfigProperty(
                filters_config=[
                    cfn.ContentFilterConfigProperty(
                        type=f.type, input_strength=f.input_strength, output_strength=f.output_strength
                    )
                    for f in spec.content_filters
                ]
            )
            if spec.content_filters
            else None,
            topic_policy_config=cfn.TopicPolicyConfigProperty(
                topics_config=[
                    cfn.TopicConfigProperty(
                        name=t.name, definition=t.definition, type="DENY", examples=list(t.examples) or None
                    )
                    for t in spec.denied_topics
                ]
            )
            if spec.denied_topics
            else None,
            sensitive_information_policy_config=cfn.SensitiveInformationPolicyConfigProperty(
                pii_entities_config=[
                    cfn.PiiEntityConfigProperty(type=e.type, action=e.action) for e in spec.pii_entities
                ]
            )
            if spec.pii_entities
            else None,
            contextual_grounding_policy_config=self._grounding(spec),
        )
        self.version = bedrock.CfnGuardrailVersion(
            self,
            "Version",
            guardrail_identifier=self.resource.attr_guardrail_arn,
            description=f"policy {spec.policy_fingerprint}",
        )
        self.reference = GuardrailReference(arn=self.resource.attr_guardrail_arn, version=self.version.attr_version)
        """What a profile enforces: this guardrail's ARN and the version created from the current policy."""

    @staticmethod
    def _grounding(spec: GuardrailSpec) -> bedrock.CfnGuardrail.ContextualGroundingPolicyConfigProperty | None:
        cfn = bedrock.CfnGuardrail
        filters = [
            cfn.ContextualGroundingFilterConfigProperty(type=kind, threshold=value)
            for kind, value in (("GROUNDING", spec.grounding_threshold), ("RELEVANCE", spec.relevance_threshold))
            if value is not None
        ]
        return cfn.ContextualGroundingPolicyConfigProperty(filters_config=filters) if filters else None


__all__ = ["Guardrail", "GuardrailReference"]
