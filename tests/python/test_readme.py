"""README.md's "Python" section runs as printed (from the repository root, over the
stand-in driver's H100 and A100; the Client example against the session's daemon)."""

import contextlib
import io
import os
import re

import pytest

import pt2scope
from conftest import ROOT


def _section():
    text = open(os.path.join(ROOT, "README.md")).read()
    start = text.index("\n## Python\n")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def _blocks():
    return re.findall(r"```python\n(.*?)```", _section(), re.S)


def _run(code):
    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, "README.md", "exec"), {})
    finally:
        os.chdir(cwd)
    return out.getvalue()


def test_readme_example_prints_what_it_says():
    first = _blocks()[0]
    assert _run(first) == ("None\nSegmentationNet ['(B, 3, 512, 512)', '(B)']\n"
                           "input 'image' axis 2: expected 512, got 256\n")
    assert "# input 'image' axis 2: expected 512, got 256" in first


def test_readme_client_example(daemon):
    code = _blocks()[1]
    assert "http://127.0.0.1:8080" in code
    _run(code.replace("http://127.0.0.1:8080", daemon))


def test_readme_table_names_exist():
    names = re.findall(r"^\| `([a-z_]+)\(", _section(), re.M)
    assert len(names) == 7
    for name in names:
        assert callable(getattr(pt2scope, name)) and callable(getattr(pt2scope.Client, name)), name
