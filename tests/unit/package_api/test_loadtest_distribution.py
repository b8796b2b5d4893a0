"""The load tester is its own distribution (``inference-loadtest``, package ``inference_loadtest``): the library
never imports it, its command line hands the load-test commands over (or names the install command), and the
deprecated ``inference_constructs.loadtest`` re-exports the tester's names."""

from __future__ import annotations

import ast
import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
#: The modules allowed to name the tester: the command line (inside the function that hands a command over) and
#: the deprecated alias.
NAMING_THE_TESTER = {"__main__.py", "loadtest.py"}


def _tester_imports(tree: ast.AST) -> list[ast.stmt]:
    found: list[ast.stmt] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        else:
            continue
        if any(name.split(".")[0] == "inference_loadtest" for name in names):
            found.append(node)
    return found


def test_no_library_module_imports_the_load_tester() -> None:
    # GIVEN every module of the library but the command line and the deprecated alias
    files = [p for p in sorted((ROOT / "inference_constructs").rglob("*.py")) if p.name not in NAMING_THE_TESTER]
    # WHEN their imports are read THEN none names inference_loadtest
    assert [str(p.relative_to(ROOT)) for p in files if _tester_imports(ast.parse(p.read_text()))] == []
    # AND the command line imports it only inside a function (when a load-test command runs)
    tree = ast.parse((ROOT / "inference_constructs" / "__main__.py").read_text())
    top_level = [n for n in tree.body if n in _tester_imports(tree)]
    assert top_level == []
    assert not (ROOT / "inference_constructs" / "loadtest").exists()


def test_the_library_and_its_command_line_load_nothing_of_the_tester() -> None:
    # GIVEN a fresh interpreter that can import the tester WHEN it imports the library and its command line
    code = "import sys, inference_constructs, inference_constructs.__main__; "
    code += "print(sorted(m for m in sys.modules if m.startswith('inference_loadtest')))"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "loadtest")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT, env=env)
    # THEN the tester was not loaded
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("command", ["loadtest", "recommend-job", "results", "compare"])
def test_without_the_tester_a_load_test_command_names_the_install_command(command: str) -> None:
    # GIVEN an interpreter where inference_loadtest cannot be imported
    code = "import sys; sys.modules['inference_loadtest'] = None\n"
    code += "from inference_constructs.__main__ import main\n"
    code += f"sys.exit(main([{command!r}, '--endpoint', 'chat', '--requests', '1']))"
    # WHEN the library's command line gets a load-test command
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=ROOT)
    # THEN it exits 2 with one message naming the command and the install command, and no traceback
    assert result.returncode == 2
    assert result.stderr == (
        f"python -m inference_constructs {command}: the load tester is not installed; "
        "install it with: pip install 'inference-constructs[loadtest]'\n"
    )


def test_the_library_command_line_lists_the_load_test_commands(capsys: pytest.CaptureFixture[str]) -> None:
    from inference_constructs.__main__ import main

    with pytest.raises(SystemExit):
        main(["--help"])
    assert "{plan,loadtest,recommend-job,results,compare,diff}" in capsys.readouterr().out


def test_with_the_tester_the_library_command_line_runs_its_commands(capsys: pytest.CaptureFixture[str]) -> None:
    from inference_constructs.__main__ import main

    # WHEN the library's command line is asked for the load test's options THEN the tester answered, by the
    # library's names
    with pytest.raises(SystemExit) as exc:
        main(["loadtest", "--help"])
    assert exc.value.code == 0
    usage = capsys.readouterr().out
    assert usage.startswith("usage: python -m inference_constructs loadtest")
    assert "--slo-ttft-ms" in usage
    # AND the comparison of two reports is the tester's too
    with pytest.raises(SystemExit) as exc:
        main(["compare", "--help"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.startswith("usage: python -m inference_constructs compare")


def test_the_tester_command_line_has_its_own_names(capsys: pytest.CaptureFixture[str]) -> None:
    from inference_loadtest.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: inference-loadtest")
    assert "{run,recommend-job,compare,results}" in out


def test_the_deprecated_alias_reexports_the_tester_and_warns() -> None:
    import inference_loadtest

    # GIVEN the alias not imported yet
    sys.modules.pop("inference_constructs.loadtest", None)
    # WHEN it is imported
    with pytest.warns(DeprecationWarning, match="import inference_loadtest"):
        alias = importlib.import_module("inference_constructs.loadtest")
    # THEN it is the tester's public names, the same objects
    assert sorted(alias.__all__) == sorted(inference_loadtest.__all__)
    assert all(getattr(alias, name) is getattr(inference_loadtest, name) for name in alias.__all__)
