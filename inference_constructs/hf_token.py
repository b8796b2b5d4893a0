"""The Secrets Manager secret that holds a Hugging Face read token: :class:`HfTokenSecret` (``model.hf_token``).

A value type of the model spec, below both the spec and the containers that read it: it names the secret and how
to reach it, never its value. How the token reaches a container is :mod:`inference_constructs.containers.model_access`.
Pure Python (no ``aws_cdk`` import).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from inference_constructs._tokens import is_unresolved

__all__ = ["HfTokenSecret"]

_SECRET_ID = re.compile(r"^(arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:)?[A-Za-z0-9/_+=.@-]{1,512}$")
_JSON_KEY = re.compile(r"^[^:{}]{1,256}$")
_VERSION_ID = re.compile(r"^[A-Za-z0-9-]{32,64}$")
_KMS_KEY_ARN = re.compile(r"^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key/[A-Za-z0-9-]+$")


@dataclass(frozen=True)
class HfTokenSecret:
    """A Secrets Manager secret holding a Hugging Face read token.

    Parameters
    ----------
    secret:
        Secret name or full ARN (a name resolves in the deploy account and region).
    json_key:
        Key of the token inside a JSON secret. Default: the whole SecretString is the token.
    version_id:
        Pin one version of the secret. Default: the AWSCURRENT version when the secret is read (by the staging job
        on each staging run; with ``in_environment``, when the Model is created).
    kms_key_arn:
        The customer managed KMS key the secret is encrypted with, which the staging job may then decrypt with.
        Default: the secret uses the AWS managed key ``aws/secretsmanager`` (no key permission needed).
    in_environment:
        Opt in to the old route: put the token into the container environment as a dynamic reference that
        CloudFormation resolves into the Model, where ``sagemaker:DescribeModel`` shows it in plain text and a
        rotated secret never arrives until the Model is replaced. Default: false, the weights are staged into S3 by
        a build job that reads the secret itself, and the Model loads them with network isolation.
    """

    secret: str
    json_key: str | None = None
    version_id: str | None = None
    kms_key_arn: str | None = None
    in_environment: bool = False

    @property
    def dynamic_reference(self) -> str:
        """The CloudFormation dynamic reference CloudFormation replaces with the token at deploy time."""
        ref = f"{{{{resolve:secretsmanager:{self.secret}"
        if self.json_key or self.version_id:
            ref += f":SecretString:{self.json_key or ''}"
        if self.version_id:
            ref += f"::{self.version_id}"  # the empty field between is the version stage
        return ref + "}}"

    def problems(self) -> list[tuple[str, str, str]]:
        """``(sub-key, what is wrong, fix)`` for each malformed field."""
        out: list[tuple[str, str, str]] = []
        if not is_unresolved(self.secret) and not _SECRET_ID.match(self.secret):
            out.append(
                (
                    "secret",
                    f"{self.secret!r} is not a secret name or arn",
                    "use 1-512 of A-Z a-z 0-9 / _ + = . @ -, "
                    "or arn:aws:secretsmanager:<region>:<account>:secret:<name>",
                )
            )
        if self.json_key is not None and not _JSON_KEY.match(self.json_key):
            out.append(("json_key", f"{self.json_key!r} is not allowed", "use 1-256 characters without ':', '{', '}'"))
        if self.version_id is not None and not _VERSION_ID.match(self.version_id):
            out.append(("version_id", f"{self.version_id!r} is not a secret version id", "use the 32-64 character id"))
        if (
            self.kms_key_arn is not None
            and not is_unresolved(self.kms_key_arn)
            and not _KMS_KEY_ARN.match(self.kms_key_arn)
        ):
            out.append(
                (
                    "kms_key_arn",
                    f"{self.kms_key_arn!r} is not a kms key arn",
                    "use arn:aws:kms:<region>:<account>:key/<id>",
                )
            )
        return out

    @property
    def codebuild_reference(self) -> str:
        """The value of a CodeBuild ``SECRETS_MANAGER`` environment variable:
        ``<secret-id>:<json-key>:<version-stage>:<version-id>`` (CodeBuild user guide, buildspec reference,
        ``env/secrets-manager``; empty fields keep their defaults). Only the secret's name or ARN, never its value."""
        if not (self.json_key or self.version_id):
            return self.secret
        return f"{self.secret}:{self.json_key or ''}::{self.version_id or ''}"
