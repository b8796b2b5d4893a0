#!/usr/bin/env python3
"""A CDK Pipelines app that deploys the platform a config file describes (``InferencePlatform`` in a Stage).

The pipeline's synth step installs the project, synthesizes this app (the compliance gates run as validation
plugins in that synth), and runs the diff gate: ``python -m inference_constructs diff`` of the plan of what is
deployed against the plan just synthesized, failing the pipeline when the monthly cost at maximum capacity rises
by more than a set amount. See README.md beside this file. Every value that names an AWS resource comes from
context (``cdk.json`` holds placeholders): ``-c source=connection|codecommit`` and the values below.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any, cast

for _var in ("JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION", "JSII_SILENCE_WARNING_UNTESTED_NODE_VERSION"):
    os.environ.setdefault(_var, "1")
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

from aws_cdk import App, CfnElement, Duration, Environment, Stack, Stage, pipelines  # noqa: E402
from aws_cdk import aws_codecommit as codecommit  # noqa: E402
from aws_cdk import aws_iam as iam  # noqa: E402
from aws_cdk import aws_kms as kms  # noqa: E402
from aws_cdk import aws_s3 as s3  # noqa: E402
from aws_cdk.region_info import RegionInfo  # noqa: E402
from constructs import Construct  # noqa: E402

from inference_constructs import InferenceConfigError, InferencePlatform  # noqa: E402
from inference_constructs.compliance import acknowledge_all, add_compliance_gates  # noqa: E402

#: The repository root: the pipeline checks it out, and config paths in context are relative to it.
REPO = Path(__file__).resolve().parents[2]
#: This example's folder, relative to the repository root (where the synth step runs `cdk synth`).
HERE = Path(__file__).resolve().parent.relative_to(REPO)


class PlatformStage(Stage):
    """One deployment of the platform (e.g. ``Prod``): the stacks of ``InferencePlatform`` for one config."""

    def __init__(self, scope: Construct, construct_id: str, *, config: Path, **kwargs: Any) -> None:
        super().__init__(scope, construct_id, **kwargs)
        self.platform = InferencePlatform(self, "Platform", config=config)


class PipelineStack(Stack):
    """The pipeline: source, synth (install, gates, diff gate), then the platform's stage."""

    def __init__(self, scope: Construct, construct_id: str, *, context: dict[str, str], **kwargs: Any) -> None:
        super().__init__(scope, construct_id, **kwargs)
        stage = PlatformStage(self, "Prod", config=REPO / context["config"], env=self.environment_of(context))
        plan = f"cdk.out/{Path(stage.outdir).name}/inference-plan.json"  # the stage's nested cloud assembly
        synth = pipelines.ShellStep(
            "Synth",
            input=self.source(context),
            install_commands=[
                "npm ci --no-audit --no-fund",
                "pip install -r requirements.txt",
                "pip install --no-deps .",
            ],
            commands=[
                f"cd {HERE}",
                # the compliance gates (cdk-nag packs, Control Tower controls) run inside this synth
                "../../node_modules/.bin/cdk synth --no-notices",
                # the diff gate: the plan of what is deployed against the plan just synthesized; before the first
                # deployment nothing is deployed, so there is nothing to compare against (README, "The deployed plan")
                self.diff_gate(context, plan),
            ],
            primary_output_directory=f"{HERE}/cdk.out",
        )
        self.pipeline = pipelines.CodePipeline(
            self,
            "Pipeline",
            synth=synth,
            artifact_bucket=self.artifact_bucket(),
            # self-mutation and asset publishing run the CDK CLI this repository pins, not the newest one
            cli_version=json.loads((REPO / "package.json").read_text(encoding="utf-8"))["devDependencies"]["aws-cdk"],
        )
        self.pipeline.add_stage(stage)
        self.stage = stage

    @staticmethod
    def diff_gate(context: dict[str, str], plan: str) -> str:
        """The diff gate's shell command: ``diff`` of the deployed plan against ``plan`` with the cost threshold, or,
        while the repository holds no deployed plan (the first deployment), a note saying how to create it."""
        baseline = shlex.quote(f"../../{context['baselinePlan']}")
        create = f"python -m inference_constructs plan {context['config']} --json > {context['baselinePlan']}"
        diff = " ".join(
            [
                "python -m inference_constructs diff",
                baseline,
                shlex.quote(plan),
                "--fail-over-usd",
                shlex.quote(context["maxMonthlyIncreaseUsd"]),
            ]
        )
        note = shlex.quote(
            f"diff gate: no deployed plan at {context['baselinePlan']} yet, so nothing is deployed to compare against"
            f" (the first deployment); after it deploys, commit the baseline from the repository root: {create}"
        )
        return f"if [ -f {baseline} ]; then {diff}; else echo {note}; fi"

    def artifact_bucket(self) -> s3.Bucket:
        """The pipeline's artifact bucket: KMS-encrypted with a rotated key, TLS only, versioned, and expiring what
        only a past execution needs (a pipeline's artifacts are rebuilt from the source commit)."""
        key = kms.Key(self, "ArtifactKey", enable_key_rotation=True, description="Pipeline artifacts")
        # AWS Control Tower CT.KMS.PR.3: kms:CreateGrant only for AWS resources or by AWS services
        # (https://docs.aws.amazon.com/controltower/latest/controlreference/kms-rules.html)
        key.add_to_resource_policy(
            iam.PolicyStatement(
                sid="DenyGrantsExceptForAwsResources",
                effect=iam.Effect.DENY,
                principals=[iam.AnyPrincipal()],
                actions=["kms:CreateGrant"],
                resources=["*"],
                conditions={
                    "BoolIfExists": {"kms:GrantIsForAWSResource": "false", "aws:PrincipalIsAWSService": "false"}
                },
            )
        )
        self.artifacts = s3.Bucket(
            self,
            "Artifacts",
            encryption=s3.BucketEncryption.KMS,
            encryption_key=key,
            enforce_ssl=True,
            versioned=True,
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            lifecycle_rules=[
                s3.LifecycleRule(noncurrent_version_expiration=Duration.days(30), expiration=Duration.days(365))
            ],
        )
        return self.artifacts

    def source(self, context: dict[str, str]) -> pipelines.CodePipelineSource:
        """The repository: a CodeStar connection (GitHub, GitLab, Bitbucket) or CodeCommit, by ``-c source=``."""
        kind, branch = context["source"], context["branch"]
        if kind == "connection":
            return pipelines.CodePipelineSource.connection(
                context["repository"], branch, connection_arn=context["connectionArn"]
            )
        repository = codecommit.Repository.from_repository_name(self, "Repository", context["codecommitRepository"])
        return pipelines.CodePipelineSource.code_commit(repository, branch)

    @staticmethod
    def environment_of(context: dict[str, str]) -> Environment:
        """Where the platform is deployed (the pipeline's own account and region here)."""
        return Environment(account=context["account"], region=context["region"])


#: Context keys this app reads (``cdk.json`` holds placeholders; ``-c key=value`` overrides).
CONTEXT_KEYS = (
    "source",
    "branch",
    "repository",
    "connectionArn",
    "codecommitRepository",
    "account",
    "region",
    "config",
    "baselinePlan",
    "maxMonthlyIncreaseUsd",
)
SOURCES = ("connection", "codecommit")


def read_context(app: App) -> dict[str, str]:
    """Every context value this app needs, as strings; a missing or wrong one is reported before anything exists."""
    context = {key: app.node.try_get_context(key) for key in CONTEXT_KEYS}
    missing = [key for key, value in context.items() if value in (None, "")]
    if missing:
        raise InferenceConfigError(
            [f"context.{key}: missing; pass -c {key}=VALUE or set it in cdk.json" for key in missing]
        )
    if context["source"] not in SOURCES:
        raise InferenceConfigError(
            f"context.source: {context['source']!r} is not allowed; use one of {', '.join(SOURCES)}"
        )
    return {key: str(value) for key, value in context.items()}


def build(app: App) -> PipelineStack:
    """Add the pipeline stack (and through it the platform's stage) to ``app``, with the compliance gates on both."""
    context = read_context(app)
    stack = PipelineStack(app, "InferencePipeline", context=context, env=PipelineStack.environment_of(context))
    add_compliance_gates(app)  # the platform's stage has its own (InferencePlatform adds them)
    stack.pipeline.build_pipeline()  # the projects and roles exist from here on: their findings can be named
    acknowledge_all(stack, pipeline_acknowledgments(stack))
    return stack


# The compliance gates' findings on what CDK Pipelines generates, acknowledged one granular finding at a time with
# the reason it is acceptable. Everything a prop can fix is fixed instead (the artifact bucket: KMS with rotation,
# TLS only, versioning, lifecycle; its key: CreateGrant only for AWS resources).
_GRANT_ACTIONS = (
    "s3:Abort*",
    "s3:DeleteObject*",
    "s3:GetBucket*",
    "s3:GetObject*",
    "s3:List*",
    "kms:GenerateDataKey*",
    "kms:ReEncrypt*",
)
_GRANTS = (
    "CDK's read/write grant on the pipeline's own artifact bucket and its key (bucket.grant_read_write): the "
    "wildcards are the S3 and KMS verb families of that grant, on that one bucket and key"
)
_CODEBUILD = (
    "CodeBuild's own log streams and test reports: CDK Pipelines grants each project its log group "
    "/aws/codebuild/<project> and report groups <project>-*, named after the project"
)
_UNSCOPED = (
    "actions with no resource-level permissions: the self-mutation project reads stack status "
    "(cloudformation:DescribeStacks) and lists buckets; the asset role starts and watches its own builds"
)
_BOOTSTRAP_ROLES = (
    "the self-mutation project assumes only the CDK bootstrap roles of this account, by their "
    "aws-cdk:bootstrap-role tag (deploy, file-publishing, image-publishing)"
)
_ARTIFACTS_ONLY = (
    "the artifact bucket holds only what an execution passes between actions, rebuilt from the source commit; "
    "CodePipeline and CloudTrail record who ran what, and a replica or access log would add nothing to restore"
)
_INLINE = "CDK Pipelines attaches each generated role's least-privilege grants as that role's own inline policy"
_SOURCE_URL = (
    "the CodeBuild projects take their input from the pipeline (source type CODEPIPELINE), never a repository "
    "URL: the source connection (CodeStar) or CodeCommit authenticates without a token in any URL"
)
_BUILD_LOGS = (
    "CodeBuild sends every build's logs to CloudWatch Logs (/aws/codebuild/<project>) when a project sets no "
    "LogsConfig, which is how CDK Pipelines makes them"
)


def pipeline_acknowledgments(stack: PipelineStack) -> list[tuple[str, str]]:
    """``(finding id, reason)`` for each finding on the pipeline's generated resources (see above)."""
    region = stack.region
    partition = RegionInfo.get(region).partition or "aws"
    bucket = stack.get_logical_id(cast(CfnElement, stack.artifacts.node.default_child))
    projects = [
        stack.get_logical_id(cast(CfnElement, p.node.default_child))
        for p in (stack.pipeline.synth_project, stack.pipeline.self_mutation_project)
    ]
    codebuild = [f"arn:{partition}:logs:{region}:{stack.account}:log-group:/aws/codebuild/*"]
    codebuild.append(f"arn:{partition}:codebuild:{region}:{stack.account}:report-group/*")
    for project in projects:
        codebuild.append(f"arn:{partition}:logs:{region}:{stack.account}:log-group:/aws/codebuild/<{project}>:*")
        codebuild.append(f"arn:{partition}:codebuild:{region}:{stack.account}:report-group/<{project}>-*")
    return [
        *((f"AwsSolutions-IAM5[Action::{action}]", _GRANTS) for action in _GRANT_ACTIONS),
        (f"AwsSolutions-IAM5[Resource::<{bucket}.Arn>/*]", _GRANTS),
        *((f"AwsSolutions-IAM5[Resource::{arn}]", _CODEBUILD) for arn in codebuild),
        ("AwsSolutions-IAM5[Resource::*]", _UNSCOPED),
        (f"AwsSolutions-IAM5[Resource::arn:*:iam::{stack.account}:role/*]", _BOOTSTRAP_ROLES),
        ("AwsSolutions-S1", _ARTIFACTS_ONLY),
        *((f"{pack}-S3BucketLoggingEnabled", _ARTIFACTS_ONLY) for pack in ("NIST.800.53.R5", "HIPAA.Security")),
        *((f"{pack}-S3BucketReplicationEnabled", _ARTIFACTS_ONLY) for pack in ("NIST.800.53.R5", "HIPAA.Security")),
        ("cdk-validator-cfnguard::s3_bucket_logging_enabled_check", _ARTIFACTS_ONLY),
        *((f"{pack}-IAMNoInlinePolicy", _INLINE) for pack in ("NIST.800.53.R5", "HIPAA.Security")),
        ("HIPAA.Security-CodeBuildProjectSourceRepoUrl", _SOURCE_URL),
        ("cdk-validator-cfnguard::codebuild_project_logging_enabled_check", _BUILD_LOGS),
    ]


def main() -> int:
    """Synthesize the pipeline app; returns the process exit code."""
    # The platform's feature flags are the repository's (cdk.json at its root); this folder's cdk.json and -c win.
    app = App(context=json.loads((REPO / "cdk.json").read_text(encoding="utf-8"))["context"])
    try:
        build(app)
    except InferenceConfigError as exc:
        print(exc, file=sys.stderr)
        return 1
    app.synth()
    return 0


if __name__ == "__main__":
    sys.exit(main())
