"""What the first use of an aws-cdk L2 class costs in a fresh process, against the L1 classes of the same resources.

Run ``python -m benchmarks.first_use [--repeat K] [--family NAME ...]``.

At small N the library's synth is dominated by fixed costs: in a fresh process Node compiles and first runs the
code of every L2 class the platform uses (``iam.Role``, ``sns.Topic``, ``appscaling.ScalableTarget``, ...), which a
hand-written app of typed L1 classes never loads. This benchmark measures that cost per family of resources, as the
library's fixed resources use them. Each measurement is a FRESH subprocess that imports aws-cdk-lib, synthesizes a
one-resource warm-up app with the compliance gates (the one-time initialisation, as the synth benchmark does for the
library and the hand-written app), then builds ``--count`` instances (default 3) of the family with the L2 classes
(``l2``) or with their L1 classes (``l1``) and synthesizes them; the time of that build and synth is reported. The
two kinds of a family run in turn within each round; the report gives each kind's median (lowest-highest) and the
median of the rounds' differences (wall, and CPU of Python, Node and their children).

The figures are milliseconds on a shared machine: never assert them in tests.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benchmarks.synth import _cpu_s, _warm_up, cdk_context

_DOC = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}]}
_TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole", "Principal": {"Service": "sagemaker.amazonaws.com"}}],
}
_ROLE_ARN = "arn:aws:iam::111122223333:role/example"


def _iam(stack: Any, i: int, kind: str) -> None:
    from aws_cdk import aws_iam as iam

    if kind == "l2":
        role = iam.Role(stack, f"Role{i}", assumed_by=iam.ServicePrincipal("sagemaker.amazonaws.com"), description="d")
        iam.ManagedPolicy(
            stack, f"Policy{i}", description="d", roles=[role], document=iam.PolicyDocument.from_json(_DOC)
        )
    else:
        cfn_role = iam.CfnRole(stack, f"Role{i}", assume_role_policy_document=_TRUST, description="d")
        iam.CfnManagedPolicy(stack, f"Policy{i}", description="d", path="/", roles=[cfn_role.ref], policy_document=_DOC)


def _scaling(stack: Any, i: int, kind: str) -> None:
    from aws_cdk import Duration
    from aws_cdk import aws_applicationautoscaling as appscaling
    from aws_cdk import aws_iam as iam

    resource_id = f"endpoint/example-{i}/variant/AllTraffic"
    dimension = "sagemaker:variant:DesiredInstanceCount"
    if kind == "l2":
        role = iam.Role.from_role_arn(stack, f"ServiceLinkedRole{i}", _ROLE_ARN, mutable=False)
        target = appscaling.ScalableTarget(
            stack,
            f"Target{i}",
            service_namespace=appscaling.ServiceNamespace.SAGEMAKER,
            resource_id=resource_id,
            scalable_dimension=dimension,
            min_capacity=0,
            max_capacity=2,
            role=role,
        )
        appscaling.TargetTrackingScalingPolicy(
            stack,
            f"Policy{i}",
            scaling_target=target,
            target_value=5,
            predefined_metric=appscaling.PredefinedMetric.SAGEMAKER_VARIANT_INVOCATIONS_PER_INSTANCE,
            scale_in_cooldown=Duration.seconds(60),
        )
    else:
        cfn_target = appscaling.CfnScalableTarget(
            stack,
            f"Target{i}",
            service_namespace="sagemaker",
            resource_id=resource_id,
            scalable_dimension=dimension,
            min_capacity=0,
            max_capacity=2,
            role_arn=_ROLE_ARN,
        )
        policy = appscaling.CfnScalingPolicy
        policy(
            stack,
            f"Policy{i}",
            policy_name=f"Policy{i}",
            policy_type="TargetTrackingScaling",
            scaling_target_id=cfn_target.ref,
            target_tracking_scaling_policy_configuration=policy.TargetTrackingScalingPolicyConfigurationProperty(
                target_value=5,
                predefined_metric_specification=policy.PredefinedMetricSpecificationProperty(
                    predefined_metric_type="SageMakerVariantInvocationsPerInstance"
                ),
                scale_in_cooldown=60,
            ),
        )


def _sns(stack: Any, i: int, kind: str) -> None:
    from aws_cdk import aws_kms as kms
    from aws_cdk import aws_sns as sns

    if kind == "l2":
        sns.Topic(stack, f"Topic{i}", master_key=kms.Alias.from_alias_name(stack, f"Key{i}", "alias/aws/sns"))
    else:
        sns.CfnTopic(stack, f"Topic{i}", kms_master_key_id="alias/aws/sns")


def _s3(stack: Any, i: int, kind: str) -> None:
    from aws_cdk import aws_s3 as s3

    if kind == "l2":
        s3.Bucket(stack, f"Bucket{i}", enforce_ssl=True, encryption=s3.BucketEncryption.S3_MANAGED)
    else:
        default = s3.CfnBucket.ServerSideEncryptionByDefaultProperty(sse_algorithm="AES256")
        bucket = s3.CfnBucket(
            stack,
            f"Bucket{i}",
            bucket_encryption=s3.CfnBucket.BucketEncryptionProperty(
                server_side_encryption_configuration=[
                    s3.CfnBucket.ServerSideEncryptionRuleProperty(server_side_encryption_by_default=default)
                ]
            ),
        )
        s3.CfnBucketPolicy(stack, f"Policy{i}", bucket=bucket.ref, policy_document=_DOC)


def _kms(stack: Any, i: int, kind: str) -> None:
    from aws_cdk import aws_kms as kms

    if kind == "l2":
        kms.Key(stack, f"Key{i}", enable_key_rotation=True)
    else:
        kms.CfnKey(stack, f"Key{i}", enable_key_rotation=True, key_policy=_DOC)


def _lambda(stack: Any, i: int, kind: str) -> None:
    from aws_cdk import aws_iam as iam
    from aws_cdk import aws_lambda as lambda_

    code = "def handler(event, context):\n    return None\n"
    if kind == "l2":
        role = iam.Role.from_role_arn(stack, f"Role{i}", _ROLE_ARN, mutable=False)
        lambda_.Function(
            stack,
            f"Function{i}",
            runtime=lambda_.Runtime.PYTHON_3_14,
            handler="index.handler",
            code=lambda_.Code.from_inline(code),
            role=role,
        )
    else:
        lambda_.CfnFunction(
            stack,
            f"Function{i}",
            code=lambda_.CfnFunction.CodeProperty(zip_file=code),
            handler="index.handler",
            runtime="python3.14",
            role=_ROLE_ARN,
        )


def _alarm(stack: Any, i: int, kind: str) -> None:
    # l2: the CfnAlarm as the Resource child of an AlarmBase (RenderedAlarm), as the library renders every alarm;
    # l1: the CfnAlarm alone, as the hand-written app does.
    from aws_cdk import aws_cloudwatch as cloudwatch

    from inference_constructs.observability.alarm_resources import RenderedAlarm

    scope, child_id = (RenderedAlarm(stack, f"Alarm{i}"), "Resource") if kind == "l2" else (stack, f"Alarm{i}")
    cloudwatch.CfnAlarm(
        scope,
        child_id,
        comparison_operator="GreaterThanThreshold",
        evaluation_periods=3,
        threshold=1,
        metric_name="ModelLatency",
        namespace="AWS/SageMaker",
        statistic="Average",
        period=60,
    )


def _ssm(stack: Any, i: int, kind: str) -> None:
    from aws_cdk import aws_ssm as ssm
    from constructs import Construct

    if kind == "l2":
        ssm.StringParameter(stack, f"Parameter{i}", parameter_name=f"/bench/p{i}", string_value="v", description="d")
    else:
        ssm.CfnParameter(Construct(stack, f"Parameter{i}"), "Resource", type="String", value="v", name=f"/bench/p{i}")


def _logs(stack: Any, i: int, kind: str) -> None:
    from aws_cdk import aws_logs as logs

    if kind == "l2":
        logs.LogGroup(stack, f"Group{i}", retention=logs.RetentionDays.ONE_MONTH)
    else:
        logs.CfnLogGroup(stack, f"Group{i}", retention_in_days=30)


FAMILIES: dict[str, Callable[[Any, int, str], None]] = {
    "alarm": _alarm,
    "ssm": _ssm,
    "logs": _logs,
    "iam": _iam,
    "scaling": _scaling,
    "sns": _sns,
    "s3": _s3,
    "kms": _kms,
    "lambda": _lambda,
}
"""Family name -> builder of instance ``i`` with the ``l2`` or ``l1`` classes."""
KINDS = ("l2", "l1")


def child(family: str, kind: str, outdir: Path, count: int = 3) -> dict[str, float]:
    """In this fresh process: warm up, then build and synthesize ``count`` instances of ``family`` as ``kind``."""
    from aws_cdk import App, Stack

    context = cdk_context()
    _warm_up(context, outdir, gates=True)
    cpu0, t0 = _cpu_s(), time.perf_counter()
    app = App(outdir=str(outdir / "measured"), context=dict(context))
    stack = Stack(app, "FirstUse")
    for i in range(count):
        FAMILIES[family](stack, i, kind)
    app.synth()
    return {"wall_s": time.perf_counter() - t0, "cpu_s": _cpu_s() - cpu0}


def _measure(family: str, kind: str, count: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="bench-first-use-") as tmp:
        out = subprocess.run(
            [sys.executable, "-m", "benchmarks.first_use", "--child", family, kind, tmp, "--count", str(count)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    result: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return result


def _spread(values: Sequence[float]) -> str:
    return f"{statistics.median(values) * 1000:.0f} ({min(values) * 1000:.0f}-{max(values) * 1000:.0f})"


def run(families: Sequence[str], repeat: int, log: Any = sys.stderr, count: int = 3) -> str:
    """Measure each family ``repeat`` times (its two kinds in turn, ``count`` instances each) and return the
    report."""
    runs: dict[tuple[str, str], list[dict[str, float]]] = {(f, k): [] for f in families for k in KINDS}
    for r in range(repeat):
        for family in families:
            for kind in KINDS:
                print(f"first use: {family} {kind} {r + 1}/{repeat} ...", file=log, flush=True)
                runs[(family, kind)].append(_measure(family, kind, count))
    lines = [
        "First use of the L2 classes against the L1 classes of the same resources: milliseconds to build and "
        f"synthesize {count} instances in a fresh process after the warm-up, median (lowest-highest) of {repeat} runs; "
        "the differences are the median of the rounds' differences.",
        "",
        f"{'family':<8}  {'L2 wall ms':<16}  {'L1 wall ms':<16}  {'L2 - L1 wall':<12}  {'L2 - L1 CPU':<12}",
    ]
    for family in families:
        l2, l1 = runs[(family, "l2")], runs[(family, "l1")]
        wall = [a["wall_s"] - b["wall_s"] for a, b in zip(l2, l1, strict=True)]
        cpu = [a["cpu_s"] - b["cpu_s"] for a, b in zip(l2, l1, strict=True)]
        lines.append(
            f"{family:<8}  {_spread([m['wall_s'] for m in l2]):<16}  {_spread([m['wall_s'] for m in l1]):<16}  "
            f"{statistics.median(wall) * 1000:<12.0f}  {statistics.median(cpu) * 1000:<12.0f}"
        )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``--repeat K`` (default 5), ``--family NAME`` (repeatable; default every family), ``--count N``
    instances of each family (default 3; a platform of 10 endpoints has about 10 roles, 8 scalable targets and
    7 topics)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--family", action="append", choices=sorted(FAMILIES))
    parser.add_argument("--count", type=int, default=3, help="instances of each family (default 3)")
    parser.add_argument("--child", nargs=3, metavar=("FAMILY", "KIND", "OUTDIR"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        family, kind, outdir = args.child
        print(json.dumps(child(family, kind, Path(outdir), args.count)))
        return 0
    sys.stdout.write(run(args.family or list(FAMILIES), args.repeat, count=args.count))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
