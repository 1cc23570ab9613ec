"""Shared setup of the Python package's tests (make test-python).

The package is imported from service/python, where `make python` put
libpt2scope.so. Before anything loads the library, this process (and every
daemon and child it starts) gets the stand-in CUDA driver
(tests/support/fakecuda.c) with two GPUs, an H100 and an A100, and a CUDA
13.0 driver, so device answers are exact. A session-wide pt2scoped serves
tests/fixtures with the same driver, so both backends see the same node; a
loopback file server (tests/remote/httpserve.py) serves the fixtures by URL.

The last line, "python: N passed, N failed, N skipped", is what tests/run.sh
counts.
"""

import os
import socket
import shutil
import subprocess
import sys
import tempfile
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(ROOT, os.environ.get("PT2SCOPE_BUILD", "build"))
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
# The shared corpus: $PT2SCOPE_SHARED (default ../shared); its tests skip where it is absent,
# and fail instead under PT2SCOPE_REQUIRE_CORPUS=1 (.ci/run), as the C suites do.
CORPUS = os.path.join(os.environ.get("PT2SCOPE_SHARED") or os.path.join(os.path.dirname(ROOT), "shared"), "corpus",
                      "pt2")
H100 = "NVIDIA H100 80GB HBM3,9.0,132,85899345920"
A100 = "NVIDIA A100-SXM4-40GB,8.0,108,42949672960"
FAKE_ENV = {
    "PT2SCOPE_LIBCUDA": os.path.join(BUILD, "fakecuda", "libcuda.so.1"),
    "PT2SCOPE_FAKECUDA_DEVICES": H100 + ";" + A100,
    "PT2SCOPE_FAKECUDA_DRIVER": "13000",
}
os.environ.update(FAKE_ENV)
os.environ.pop("CUDA_VISIBLE_DEVICES", None)
os.environ.pop("PT2SCOPE_LIBRARY", None)
sys.path.insert(0, os.path.join(ROOT, "service", "python"))


def fixture(name):
    return os.path.join(FIXTURES, name)


def corpus_packages():
    if not os.path.isdir(CORPUS):
        if os.environ.get("PT2SCOPE_REQUIRE_CORPUS") == "1":
            raise RuntimeError("PT2SCOPE_REQUIRE_CORPUS=1 but there is no corpus at " + CORPUS)
        return []
    return sorted(os.path.join(CORPUS, f) for f in os.listdir(CORPUS) if f.endswith(".pt2"))


def _wait_port(path, proc, what):
    for _ in range(1000):
        if os.path.exists(path) and os.path.getsize(path) > 0:
            with open(path) as f:
                return int(f.read().strip())
        if proc.poll() is not None:
            break
        time.sleep(0.01)
    proc.kill()
    raise RuntimeError("%s did not start" % what)


@pytest.fixture(scope="session")
def fileserver():
    """http://127.0.0.1:PORT/ serving tests/fixtures with Range support."""
    tmp = tempfile.mkdtemp(prefix="pt2scope-py-http-")
    port_file = os.path.join(tmp, "port")
    proc = subprocess.Popen(
        [sys.executable, os.path.join(ROOT, "tests", "remote", "httpserve.py"), "slow", "--port-file", port_file,
         "--log", os.path.join(tmp, "log"), "--delay", "0", "--parent", str(os.getpid()), FIXTURES],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    port = _wait_port(port_file, proc, "httpserve.py")
    yield "http://127.0.0.1:%d/" % port
    proc.kill()
    proc.wait()
    shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture(scope="session")
def daemon(fileserver):
    """Base URL of a pt2scoped over tests/fixtures, URLs allowed from the file server."""
    tmp = tempfile.mkdtemp(prefix="pt2scope-py-d-")
    port_file = os.path.join(tmp, "port")
    log = open(os.path.join(tmp, "log"), "w")
    proc = subprocess.Popen(
        [os.path.join(BUILD, "pt2scoped"), "--listen", "127.0.0.1:0", "--port-file", port_file,
         "--model-root", FIXTURES, "--remote-allow", fileserver],
        stdout=log, stderr=log)
    port = _wait_port(port_file, proc, "pt2scoped")
    yield "http://127.0.0.1:%d" % port
    proc.terminate()
    proc.wait(timeout=30)
    log.close()
    shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture(scope="session")
def token_daemon():
    """A pt2scoped that needs a bearer token ("s3cret-token")."""
    tmp = tempfile.mkdtemp(prefix="pt2scope-py-t-")
    port_file = os.path.join(tmp, "port")
    token = os.path.join(tmp, "token")
    with open(token, "w") as f:
        f.write("s3cret-token\n")
    os.chmod(token, 0o600)
    proc = subprocess.Popen(
        [os.path.join(BUILD, "pt2scoped"), "--listen", "127.0.0.1:0", "--port-file", port_file,
         "--model-root", FIXTURES, "--token-file", token],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    port = _wait_port(port_file, proc, "pt2scoped --token-file")
    yield "http://127.0.0.1:%d" % port
    proc.terminate()
    proc.wait(timeout=30)
    shutil.rmtree(tmp, ignore_errors=True)


def cli_json(*args):
    """`pt2scope ARGS... --json` (the CLI: the same library, another front end)."""
    import json

    out = subprocess.run([os.path.join(BUILD, "pt2scope")] + list(args) + ["--json"], capture_output=True, text=True)
    return json.loads(out.stdout)


def pytest_terminal_summary(terminalreporter):
    stats = terminalreporter.stats
    n = lambda k: len([r for r in stats.get(k, []) if getattr(r, "when", "call") in ("call", "setup")])
    terminalreporter.write_line(
        "python: %d passed, %d failed, %d skipped" % (n("passed"), n("failed") + n("error"), n("skipped")))
