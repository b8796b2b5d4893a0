"""The staging build's program: copy one Hugging Face model at one commit into S3, file by file.

Run by the CodeBuild project of :class:`inference_constructs.hosting.staging.HubModelStaging` (``python3
hub_model_staging_job.py``), with the standard CodeBuild image's ``python3`` and AWS CLI and nothing installed:

* ``MODEL_ID``, ``REVISION``, ``TARGET`` (``s3://bucket/prefix/``): plain project variables;
* ``HF_TOKEN``: a ``SECRETS_MANAGER`` project variable, which CodeBuild reads from the secret with the project's
  role when the build starts and masks in the build log; it is only ever sent to huggingface.co.

The file list comes from the hub API (``GET /api/models/<id>/revision/<revision>``, whose ``sha`` must be the
pinned commit) and each file from ``GET /<id>/resolve/<revision>/<file>`` (the URL form huggingface_hub's
``hf_hub_url`` builds). Each download is streamed straight into ``aws s3 cp -``, so the build needs no disk for
the weights. When the repository has ``*.safetensors`` weights, the duplicate PyTorch checkpoints (``*.bin``,
``*.pt``, ``*.pth``, ``original/``) are skipped: the serving containers load safetensors.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable
from typing import IO, Any

HUB = "https://huggingface.co"
CHUNK_BYTES = 8 * 1024 * 1024
TIMEOUT_S = 60
_DUPLICATE_SUFFIXES = (".bin", ".pt", ".pth")


def files_to_copy(names: Iterable[str]) -> list[str]:
    """The repository files to stage: all, less duplicate PyTorch checkpoints when safetensors weights exist."""
    files = sorted(set(names))
    if not any(n.endswith(".safetensors") for n in files):
        return files
    return [n for n in files if not n.startswith("original/") and not n.endswith(_DUPLICATE_SUFFIXES)]


class _DropAuthorizationOffHost(urllib.request.HTTPRedirectHandler):
    """Follow redirects (file downloads redirect to a content host) without sending the token to another host."""

    def redirect_request(  # type: ignore[no-untyped-def]  # noqa: PLR0917 - the stdlib method's signature
        self, req, fp, code, msg, headers, newurl
    ):
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and urllib.parse.urlsplit(newurl).hostname != urllib.parse.urlsplit(req.full_url).hostname:
            new.remove_header("Authorization")
        return new


_OPENER = urllib.request.build_opener(_DropAuthorizationOffHost)


def _get(url: str, token: str) -> Any:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}", "User-Agent": "hub-staging"})
    return _OPENER.open(request, timeout=TIMEOUT_S)


def _upload(source: IO[bytes], target: str, size: int | None) -> None:
    command = ["aws", "s3", "cp", "-", target, "--only-show-errors"]
    if size:
        command += ["--expected-size", str(size)]
    with subprocess.Popen(command, stdin=subprocess.PIPE) as upload:
        assert upload.stdin is not None
        while chunk := source.read(CHUNK_BYTES):
            upload.stdin.write(chunk)
        upload.stdin.close()
        if upload.wait() != 0:
            raise RuntimeError(f"aws s3 cp to {target} exited {upload.returncode}")


def stage(
    model_id: str,
    revision: str,
    target: str,
    token: str,
    *,
    get: Callable[[str, str], Any] = _get,
    upload: Callable[[IO[bytes], str, int | None], None] = _upload,
) -> list[str]:
    """Copy ``model_id`` at ``revision`` to ``target``; return the files copied."""
    quoted = urllib.parse.quote(model_id, safe="/")
    with get(f"{HUB}/api/models/{quoted}/revision/{revision}", token) as reply:
        info = json.load(reply)
    if info.get("sha") != revision:
        raise RuntimeError(f"{model_id} revision {revision} resolved to {info.get('sha')}: pin the full commit id")
    copied = files_to_copy(s["rfilename"] for s in info.get("siblings", []) if s.get("rfilename"))
    if not copied:
        raise RuntimeError(f"{model_id}@{revision} lists no files")
    for name in copied:
        url = f"{HUB}/{quoted}/resolve/{revision}/{urllib.parse.quote(name)}"
        with get(url, token) as reply:
            length = reply.headers.get("Content-Length")
            upload(reply, target.rstrip("/") + "/" + name, int(length) if length else None)
        print(f"staged {name}", flush=True)
    return copied


def main() -> int:
    """Read the job's variables and stage; a missing variable or any error fails the build."""
    names = ("MODEL_ID", "REVISION", "TARGET", "HF_TOKEN")
    missing = [n for n in names if not os.environ.get(n)]
    if missing:
        print(f"missing environment variables: {', '.join(missing)}", file=sys.stderr)
        return 2
    copied = stage(os.environ["MODEL_ID"], os.environ["REVISION"], os.environ["TARGET"], os.environ["HF_TOKEN"])
    print(f"staged {len(copied)} files of {os.environ['MODEL_ID']}@{os.environ['REVISION']} to {os.environ['TARGET']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
