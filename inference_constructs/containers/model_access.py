"""Gated and private Hugging Face models: which models need a token, which variable each container reads, and
how the token reaches it without its text in a template or plan.

Pure Python. Two routes are supported (docs/hosting.md, "Gated and private models"):

- weights staged in S3 (``model.source: s3``): SageMaker copies them to ``/opt/ml/model``; no token, works with
  network isolation. Recommended.
- a Secrets Manager secret named in ``model.hf_token``: the container's token variable is set to a CloudFormation
  dynamic reference, ``{{resolve:secretsmanager:<secret>[:SecretString:<json key>[::<version id>]]}}``
  (CloudFormation user guide, "Get values stored in other services using dynamic references").
  CloudFormation resolves it with the deploying principal's permissions when it creates the Model, so the
  token is in neither the template nor the plan and the execution role needs no secret access. The resolved
  value is stored in the Model, so DescribeModel shows it, and a rotated token reaches the endpoint only when
  the Model is replaced (a deploy that changes the reference, e.g. a new ``version_id``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from inference_constructs.spec import Serving

__all__ = [
    "GATED_MODEL_PREFIXES",
    "TOKEN_VARIABLES",
    "HfTokenSecret",
    "gated_prefix",
    "looks_like_token",
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

_SECRET_ID = re.compile(r"^(arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:)?[A-Za-z0-9/_+=.@-]{1,512}$")
_JSON_KEY = re.compile(r"^[^:{}]{1,256}$")
_VERSION_ID = re.compile(r"^[A-Za-z0-9-]{32,64}$")


def gated_prefix(model_id: str | None) -> str | None:
    """The known gated prefix ``model_id`` starts with, or None."""
    if not model_id:
        return None
    return next((p for p in GATED_MODEL_PREFIXES if model_id.startswith(p)), None)


def looks_like_token(value: str) -> bool:
    """True when ``value`` contains what looks like a Hugging Face user access token in plain text."""
    return bool(_TOKEN_TEXT.search(value))


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
        Pin one version of the secret; changing it replaces the Model, which is how a rotated token reaches the
        endpoint. Default: the AWSCURRENT version when the Model is created (later rotations need a new deploy
        that replaces the Model).
    """

    secret: str
    json_key: str | None = None
    version_id: str | None = None

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
        if not _SECRET_ID.match(self.secret):
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
        return out
