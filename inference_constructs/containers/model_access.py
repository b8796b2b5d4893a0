"""Gated and private Hugging Face models: which models need a token, which variable each container reads, and
how the token reaches it without its text in a template or plan.

Pure Python. Three routes (docs/hosting.md, "Gated and private models"):

- weights you staged in S3 yourself (``model.source: s3``): SageMaker copies them to ``/opt/ml/model``; no token.
- ``model.hf_token`` (the default route, :attr:`TokenRoute.STAGED`): at deploy time a build job started and
  awaited by a custom resource reads the secret itself (a CodeBuild ``SECRETS_MANAGER`` environment variable)
  and copies the model at ``model.revision`` (a pinned commit) from the hub into the stack's data bucket under
  :func:`staged_key_prefix`; the Model loads that prefix (uncompressed ``ModelDataSource``) with network
  isolation. The token never reaches the Model, the template or the plan; a rotated secret is read by the next
  staging run. The SageMaker API reference says of ``ContainerDefinition.Environment``: "Don't include any
  sensitive data in your environment variables" (CreateModel, botocore ``sagemaker`` model).
- ``model.hf_token.in_environment: true`` (:attr:`TokenRoute.ENVIRONMENT`, an explicit opt-in the plan warns
  about): the container's token variable is set to a CloudFormation dynamic reference,
  ``{{resolve:secretsmanager:<secret>[:SecretString:<json key>[::<version id>]]}}`` (CloudFormation user guide,
  "Get values stored in other services using dynamic references"). CloudFormation resolves it when it creates
  the Model and stores the plain value in it: DescribeModel shows it, and a rotated token reaches the endpoint
  only when the Model is replaced.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType

from inference_constructs.hf_token import HfTokenSecret
from inference_constructs.spec import Serving

__all__ = [
    "GATED_MODEL_PREFIXES",
    "STAGED_PREFIX",
    "TOKEN_VARIABLES",
    "HfTokenSecret",
    "ModelAccess",
    "ModelStaging",
    "TokenRoute",
    "gated_prefix",
    "is_commit_hash",
    "looks_like_token",
    "staged_key_prefix",
]


@dataclass(frozen=True)
class TokenVariable:
    """The environment variable a container reads its Hugging Face token from, with the source."""

    name: str
    source: str


_HUB = "huggingface_hub docs, environment variables: HF_TOKEN (read by every download through huggingface_hub)"

TOKEN_VARIABLES: Mapping[Serving, TokenVariable] = MappingProxyType(
    {
        Serving.TGI: TokenVariable(
            "HF_TOKEN", "huggingface/text-generation-inference docs/source/basic_tutorials/gated_model_access.md"
        ),
        Serving.LMI: TokenVariable("HF_TOKEN", "djl-serving LMI downloads hub models with huggingface_hub; " + _HUB),
        Serving.NEURON: TokenVariable(
            "HF_TOKEN", "djl-serving LMI (neuron) downloads hub models with huggingface_hub; " + _HUB
        ),
        Serving.VLLM: TokenVariable("HF_TOKEN", "vLLM downloads hub models with huggingface_hub; " + _HUB),
        Serving.CUSTOM: TokenVariable("HF_TOKEN", "the hub's own convention; " + _HUB),
    }
)
"""Token variable per serving stack that can download from the Hugging Face Hub."""

TOKEN_KEYS = frozenset({"HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HUGGINGFACEHUB_API_TOKEN"})
"""Variables that would carry a token in plain text; the passthrough refuses them (use ``model.hf_token``)."""

GATED_MODEL_PREFIXES: Mapping[str, str] = MappingProxyType(
    {
        "meta-llama/": "every Llama model card asks to accept the Llama community license before download "
        "(huggingface.co/meta-llama)",
        "google/gemma": "every Gemma model card asks to accept Google's Gemma terms before download "
        "(huggingface.co/google)",
    }
)
"""Hub organisations/prefixes whose models are gated, with the source. Other gated models (many ``mistralai/``
ones among them) are not listed because not all of that organisation's models are gated: give
``model.hf_token`` or stage them in S3 when their card asks to accept terms."""

_TOKEN_TEXT = re.compile(r"\bhf_[A-Za-z0-9]{30,}\b")
"""User access tokens look like ``hf_`` followed by 34 letters and digits (huggingface.co/docs/hub/security-tokens
shows the form; the exact length is unconfirmed, so 30 or more)."""

_COMMIT = re.compile(r"^[0-9a-f]{40}$")
"""A git commit id as the hub shows it (40 lowercase hex digits): the only revision that never moves. A branch
(``main``) or tag can move, and the staged copy is made once per revision, so it would silently go stale."""

STAGED_PREFIX = "hub-models/"
"""Key prefix in the stack's data bucket under which staged hub models land, one prefix per model id and
revision (:func:`staged_key_prefix`)."""


def gated_prefix(model_id: str | None) -> str | None:
    """The known gated prefix ``model_id`` starts with, or None."""
    if not model_id:
        return None
    return next((p for p in GATED_MODEL_PREFIXES if model_id.startswith(p)), None)


def is_commit_hash(revision: str) -> bool:
    """True when ``revision`` is a full hub commit id (40 lowercase hex digits)."""
    return bool(_COMMIT.match(revision))


def staged_key_prefix(model_id: str, revision: str) -> str:
    """``hub-models/<model id>/<revision>/``: where the staging job writes ``model_id`` at ``revision``. Derived from
    both, so a new revision lands beside the old one and the Model switches prefix in the same deploy."""
    return f"{STAGED_PREFIX}{model_id.strip('/')}/{revision}/"


def looks_like_token(value: str) -> bool:
    """True when ``value`` contains what looks like a Hugging Face user access token in plain text."""
    return bool(_TOKEN_TEXT.search(value))


class TokenRoute(StrEnum):
    """How a gated or private hub model's token is used."""

    STAGED = "staged"
    """A build job reads the secret and copies the weights into S3; the Model loads them from there."""
    ENVIRONMENT = "environment"
    """The container gets the token in its environment (opt-in: ``model.hf_token.in_environment``)."""


@dataclass(frozen=True)
class ModelStaging:
    """What the deploy-time staging job copies: ``model_id`` at ``revision`` into the data bucket at ``key_prefix``."""

    model_id: str
    revision: str
    key_prefix: str
    secret: HfTokenSecret


@dataclass(frozen=True)
class ModelAccess:
    """The route a gated or private hub model takes (the plan's ``model_access`` entry)."""

    route: TokenRoute
    secret: HfTokenSecret
    reason: str
    staging: ModelStaging | None = None

    def to_json(self) -> dict[str, object]:
        """The plan document's entry: the route, the secret's name (never its value) and where weights land."""
        s = self.staging
        return {
            "route": self.route.value,
            "secret": self.secret.secret,
            "staged_to": None
            if s is None
            else {
                "bucket": "the stack's data bucket (InferenceStorage/Data)",
                "key_prefix": s.key_prefix,
                "model_id": s.model_id,
                "revision": s.revision,
                "job": "codebuild project started and awaited by a custom resource (Custom::HubModelStaging)",
            },
            "reason": self.reason,
        }
