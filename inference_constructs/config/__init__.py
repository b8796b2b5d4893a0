"""The platform config file: schema (``docs/config.md``), loading and validation."""

from inference_constructs.config.load import (
    DEFAULT_CONFIG,
    ENV_VAR,
    format_path,
    load_config,
    parse_config,
    resolve_config_path,
    validate_config,
)
from inference_constructs.config.schema import Endpoint, PlatformConfig

__all__ = [
    "DEFAULT_CONFIG",
    "ENV_VAR",
    "Endpoint",
    "PlatformConfig",
    "format_path",
    "load_config",
    "parse_config",
    "resolve_config_path",
    "validate_config",
]
