"""The installed ``cdk-validator-cfnguard`` package on disk, and its own validation run in Node worker processes side
by side.

The plugin's validation is synchronous Node code (``CfnGuardValidator.validate`` runs its bundled cfn-guard with
``spawnSync`` and parses the report), and the jsii kernel runs one call at a time, so rule files validated through
jsii run one after another on one core. :class:`SideBySide` runs the same code, the plugin's own
``lib/plugin.js`` with its bundled binary, extracted byte for byte from the installed package, in one plain Node
process per available core, each taking the next run from a queue (the most costly first); the reports are
returned in the order of the runs.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import importlib.resources
import json
import os
import queue
import shutil
import subprocess
import tarfile
import tempfile
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["GuardRun", "SideBySide", "plugin_directory", "plugin_tarball"]

#: Where the plugin's package keeps what its validation runs: its Node code, its ``package.json`` (the code reads
#: its version there), its cfn-guard binaries (``bin/<os>/<arch>/cfn-guard``) and its Control Tower rule files.
_IN_PACKAGE = ("package/lib/", "package/bin/", "package/package.json", "package/rules/control-tower/cfn-guard/")
#: The folder of the Control Tower rule files inside :func:`plugin_directory` (``<service>/ct-*.guard``).
RULES_FOLDER = "package/rules/control-tower/cfn-guard"

#: One worker: ``node -e`` with the plugin's ``lib/plugin.js`` as its argument. It reads one run a line
#: (``{"rules", "templatePaths", "disabledRules", "maxBuffer"}``), validates it with the plugin's own
#: ``CfnGuardValidator`` (Control Tower folder off, the run's rule files on), and writes one line back: the report
#: (``{"report": {"success", "violations"}}``) or the error the plugin threw (``{"error": message}``).
_WORKER = """
const readline = require('readline');
const { CfnGuardValidator } = require(process.argv[1]);
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const run = JSON.parse(line);
  let reply;
  try {
    const guard = new CfnGuardValidator({
      controlTowerRulesEnabled: false,
      rules: run.rules,
      disabledRules: run.disabledRules,
      maxBuffer: run.maxBuffer,
    });
    reply = { report: guard.validate({ templatePaths: run.templatePaths }) };
  } catch (e) {
    reply = { error: String((e && e.message) || e) };
  }
  process.stdout.write(JSON.stringify(reply) + '\\n');
});
// the Python side is gone (its end of the pipe closed): stop without a stack trace
process.stdout.on('error', () => process.exit(1));
"""


def plugin_tarball() -> Path:
    """The jsii tarball of the installed ``cdk-validator-cfnguard`` (what the plugin's Node code runs from)."""
    package = importlib.resources.files("cdklabs.cdk_validator_cfnguard._jsii")
    (tarball,) = (p for p in package.iterdir() if p.name.endswith(".jsii.tgz"))
    return Path(str(tarball))


def _extract(tarball: Path, into: Path) -> None:
    """Write the members of ``tarball`` the validation runs (:data:`_IN_PACKAGE`) into ``into``, byte for byte,
    under their path in the tarball; the binaries keep their mode."""
    with tarfile.open(tarball) as tar:
        for member in tar.getmembers():
            if not member.isfile() or not member.name.startswith(_IN_PACKAGE):
                continue
            target = into / member.name
            target.parent.mkdir(parents=True, exist_ok=True)
            source = tar.extractfile(member)
            if source is None:
                raise RuntimeError(f"cannot read {member.name} from {tarball}")
            target.write_bytes(source.read())
            target.chmod(member.mode & 0o755 | 0o600)


#: Version of what :func:`plugin_directory` extracts (:data:`_IN_PACKAGE`): part of the cache key, so a folder
#: extracted for another list is never taken for this one.
_LAYOUT = "1"


@functools.cache
def plugin_directory(tarball: Path | None = None) -> Path:
    """A directory holding what the validation of ``tarball`` (the installed plugin by default) runs, under the
    tarball's own paths (``package/lib/plugin.js``, ``package/bin/...``, :data:`RULES_FOLDER`): extracted once per
    plugin build into the user's cache (``$XDG_CACHE_HOME`` or ``~/.cache``, as jsii caches the plugin itself),
    keyed by the tarball's SHA-256 and :data:`_LAYOUT`; when the cache cannot be written, into a temporary
    directory removed when the process exits. Found once per process."""
    tarball = tarball or plugin_tarball()
    key = f"{hashlib.sha256(tarball.read_bytes()).hexdigest()[:16]}-{_LAYOUT}"
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "inference-constructs" / "cfn-guard"
    root = cache / key
    if root.is_dir():
        return root
    try:
        cache.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f"{key}-", dir=cache))
    except OSError:
        staging = Path(tempfile.mkdtemp(prefix="inference-constructs-cfn-guard-"))
        atexit.register(shutil.rmtree, staging, True)
        _extract(tarball, staging)
        return staging
    try:
        _extract(tarball, staging)
    except BaseException:  # a full disk, an interrupt: leave no half-extracted folder in the cache
        shutil.rmtree(staging, ignore_errors=True)
        raise
    try:
        staging.rename(root)
    except OSError:
        if not root.is_dir():  # the cache folder cannot take it: run from the complete copy, removed at exit
            atexit.register(shutil.rmtree, staging, True)
            return staging
        shutil.rmtree(staging, ignore_errors=True)  # another process extracted the same files first
    return root


@dataclass(frozen=True)
class GuardRun:
    """One validation by the plugin: its rule files on its template files."""

    rules: tuple[str, ...]
    """the rule files (paths)"""
    templates: tuple[str, ...]
    """the template files to validate (paths)"""

    def cost(self) -> int:
        """What the run costs, in proportion: cfn-guard's time grows with (rule files) x (template bytes)."""
        return len(self.rules) * sum(os.path.getsize(t) for t in self.templates)


def _cores() -> int:
    """Cores this process may use: those it may run on, fewer when a cgroup (v2) CPU quota says so (a container
    on a large host)."""
    affinity = getattr(os, "sched_getaffinity", None)
    cores = len(affinity(0)) if affinity is not None else os.cpu_count() or 1
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text(encoding="ascii").split()
        if quota != "max":
            cores = min(cores, max(1, -(-int(quota) // int(period))))
    except (OSError, ValueError):
        pass
    return cores


#: Every :class:`SideBySide` not yet closed, closed when the process exits: no worker outlives a synth that stopped
#: between starting the runs and collecting them.
_OPEN: weakref.WeakSet[SideBySide] = weakref.WeakSet()


@atexit.register
def _close_open() -> None:
    for side in list(_OPEN):
        side.close()


class SideBySide:
    """The plugin's validation of several runs, started at once in the background: one Node process per available
    core (at most one per run), each taking the next run from a queue, the most costly first (:func:`reports`
    waits for them; :func:`close` stops them)."""

    def __init__(self, runs: Sequence[GuardRun], *, disabled_rules: Sequence[str], max_buffer: int) -> None:
        self._runs = tuple(runs)
        self._request = {"disabledRules": list(disabled_rules), "maxBuffer": max_buffer}
        self._pending: queue.Queue[int] = queue.Queue()
        for k in sorted(range(len(self._runs)), key=lambda k: -self._runs[k].cost()):
            self._pending.put(k)
        self._reports: list[dict[str, Any] | None] = [None] * len(self._runs)
        self._errors: list[str] = []
        self._workers: list[subprocess.Popen[str]] = []
        self._closed = False
        self._plugin = plugin_directory() / "package" / "lib" / "plugin.js"
        self._threads = [
            threading.Thread(target=self._work, daemon=True) for _ in range(min(_cores(), len(self._runs)))
        ]
        _OPEN.add(self)
        for t in self._threads:
            t.start()

    def reports(self) -> list[dict[str, Any]]:
        """The plugin's report (``{"success", "violations"}``, as its Node code returns it) of each run, in the
        order of the runs, once every run is done.

        Raises
        ------
        RuntimeError
            With the plugin's own message, when its validation of a run fails (cfn-guard could not run, or its
            output could not be read), or when the runs were closed first.
        """
        for t in self._threads:
            t.join()
        _OPEN.discard(self)
        done = [r for r in self._reports if r is not None]
        if self._errors or len(done) != len(self._runs):
            raise RuntimeError(self._errors[0] if self._errors else "a validation worker returned no report")
        return done

    def close(self) -> None:
        """Stop: no run is started any more, the workers are ended and their threads waited for."""
        self._closed = True
        for worker in list(self._workers):
            worker.kill()
        for t in self._threads:
            t.join()
        _OPEN.discard(self)

    def _work(self) -> None:
        try:
            self._serve()
        except Exception as exc:  # a worker that cannot start or answer fails the validation, with the reason
            self._errors.append(f"the validation worker failed: {exc}")

    def _serve(self) -> None:
        if self._closed:
            return
        node = os.environ.get("JSII_NODE", "node")
        # the heap jsii gives its own Node process: a worker parses cfn-guard reports of up to max_buffer bytes
        command = [node, "--max-old-space-size=4069", "-e", _WORKER, str(self._plugin)]
        with subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8"
        ) as worker:
            self._workers.append(worker)
            assert worker.stdin is not None and worker.stdout is not None
            try:
                while not self._errors and not self._closed:
                    try:
                        k = self._pending.get_nowait()
                    except queue.Empty:
                        break
                    run = {"rules": list(self._runs[k].rules), "templatePaths": list(self._runs[k].templates)}
                    worker.stdin.write(json.dumps(run | self._request) + "\n")
                    worker.stdin.flush()
                    line = worker.stdout.readline()
                    reply: dict[str, Any] = json.loads(line) if line else {"error": "the validation worker stopped"}
                    if "error" in reply:
                        self._errors.append(str(reply["error"]))
                    else:
                        self._reports[k] = reply["report"]
            finally:
                with contextlib.suppress(OSError):
                    worker.stdin.close()
