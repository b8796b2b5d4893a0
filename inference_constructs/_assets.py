"""Where Lambda asset folders live (private): inside an installed wheel or in a source checkout."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def lambda_asset_path(name: str) -> str:
    """Absolute path of the Lambda asset folder ``name``.

    An installed wheel ships the top-level ``lambda/`` folder as ``inference_constructs/_lambda/``
    (see ``setup.py``); a source checkout has it beside the package.

    Raises
    ------
    FileNotFoundError
        When neither location holds the folder.
    """
    for candidate in (_PACKAGE / "_lambda" / name, _PACKAGE.parent / "lambda" / name):
        if candidate.is_dir():
            return str(candidate)
    raise FileNotFoundError(
        f"lambda asset folder {name!r} not found in {_PACKAGE / '_lambda'} or {_PACKAGE.parent / 'lambda'}; "
        "reinstall the package or run from the repository root"
    )
