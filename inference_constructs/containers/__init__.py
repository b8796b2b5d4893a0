"""Serving containers: pinned preset images (a snapshot of the SageMaker SDK tables) and their environment.

Pure Python, no ``aws_cdk`` or ``sagemaker`` import at runtime.
"""

from __future__ import annotations

from inference_constructs.containers.environment import (
    MODEL_DIR,
    QUANTIZATION_METHODS,
    ServingParameters,
    container_environment,
    default_quantization,
    validate_environment,
    validate_quantization,
    validate_user_environment,
)
from inference_constructs.containers.images import (
    ContainerImage,
    ImageSnapshot,
    ImageVariant,
    image_key,
    load_snapshot,
    select_image,
)

__all__ = [
    "MODEL_DIR",
    "QUANTIZATION_METHODS",
    "ContainerImage",
    "ImageSnapshot",
    "ImageVariant",
    "ServingParameters",
    "container_environment",
    "default_quantization",
    "image_key",
    "load_snapshot",
    "select_image",
    "validate_environment",
    "validate_quantization",
    "validate_user_environment",
]
