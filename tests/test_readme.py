"""The README's examples run as written.

Every ```python block is executed, in a fresh namespace, in a temporary folder.
Every line of a ```bash block is either a ``tricount`` command, run through the
CLI's ``main`` in that folder (in order, so later commands read what earlier
ones wrote) and required to exit 0, or one of the installation steps CI itself
performs (:data:`NOT_RUN_HERE`); any other line fails the test, so a new kind
of example cannot be skipped silently.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tricount.cli import main

README = Path(__file__).resolve().parents[1] / "README.md"

#: Commands the README shows that this test does not run: installing (CI installs before it
#: runs the tests) and running the tests themselves.
NOT_RUN_HERE = ("pip install ", "python3 -m venv ", ". .venv/bin/activate", "python3 -m pytest")

#: What a command prints on stdout, where the README says so.
STDOUT = {"tricount count": "15640241\n"}

BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)


def blocks(language: str) -> list[str]:
    return [body for lang, body in BLOCK.findall(README.read_text()) if lang == language]


def commands() -> list[str]:
    """Every command of the bash blocks, comments dropped, ``a && b`` split, in order."""
    out = []
    for body in blocks("bash"):
        for line in body.splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip()
            out.extend(part.strip() for part in line.split("&&") if part.strip())
    return out


def test_the_readme_has_examples_of_each_kind():
    assert blocks("python") and "tricount count" in commands()
    assert 'pip install -e ".[test]"' in commands() and "python3 -m pytest -n auto" in commands()


@pytest.mark.parametrize("index", range(len(blocks("python"))))
def test_python_blocks_run(index, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    source = blocks("python")[index]
    exec(compile(source, f"README.md python block {index + 1}", "exec"), {"__name__": "readme"})


def test_bash_blocks_run(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    done = set()
    for command in commands():
        if command.startswith(NOT_RUN_HERE):
            continue
        assert command.startswith("tricount "), f"the README shows {command!r}: run it here"
        if command in done:
            continue  # the same example twice (the two commands, then the CLI section)
        done.add(command)
        capsys.readouterr()
        status = main(shlex.split(command)[1:])
        out, err = capsys.readouterr()
        assert status == 0, f"{command}: exit {status}\n{err}"
        if command in STDOUT:
            assert out == STDOUT[command], command
