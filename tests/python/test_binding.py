"""The shared library and the package as shipped: exported symbols, ABI
version, how the library is found, an offline `pip install`, the ctypes
binding under many threads, and no leak over 10,000 calls."""

import ctypes
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

import pytest

import pt2scope
from pt2scope import _native
from conftest import BUILD, ROOT, fixture

SHLIB = os.path.join(BUILD, "libpt2scope.so")
PKG_DIR = os.path.join(ROOT, "service", "python")
EXPORTS = {
    "pt2scope_abi_version", "pt2scope_version", "pt2scope_open_path", "pt2scope_open_url",
    "pt2scope_open_buffer", "pt2scope_close", "pt2scope_inspect", "pt2scope_check", "pt2scope_validate",
    "pt2scope_free",
}
EXPORTS_2 = {"pt2scope_open_model"}


def test_exported_symbols_are_the_bindings_only():
    out = subprocess.run(["nm", "-D", "--defined-only", SHLIB], capture_output=True, text=True, check=True).stdout
    symbols = {}
    for line in out.splitlines():
        _, kind, name = line.split()
        symbols[name] = kind
    assert symbols.pop("PT2SCOPE_1") == "A"  # the version nodes
    assert symbols.pop("PT2SCOPE_2") == "A"
    assert set(symbols) == {s + "@@PT2SCOPE_1" for s in EXPORTS} | {s + "@@PT2SCOPE_2" for s in EXPORTS_2}
    assert set(symbols.values()) == {"T"}
    # Every one of them is declared in the public header.
    header = open(os.path.join(ROOT, "service", "include", "pt2scope.h")).read()
    for s in EXPORTS | EXPORTS_2:
        assert re.search(r"\b%s\(" % s, header), s


def test_abi_and_version():
    lib = ctypes.CDLL(SHLIB)
    assert lib.pt2scope_abi_version() == 2 == _native.ABI_VERSION
    lib.pt2scope_version.restype = ctypes.c_char_p
    header = open(os.path.join(ROOT, "service", "include", "pt2scope.h")).read()
    assert lib.pt2scope_version().decode() == re.search(r'#define PT2SCOPE_VERSION "([^"]+)"', header).group(1)
    assert re.search(r"#define PT2SCOPE_ABI_VERSION 2\b", header)


def test_null_arguments_are_problems_not_crashes():
    lib = _native.library()
    out = ctypes.c_void_p()
    assert lib.pt2scope_inspect(None, None, ctypes.byref(out)) == -9
    assert b"bad-request" in ctypes.string_at(out.value)
    lib.pt2scope_free(out)
    h, prob = ctypes.c_void_p(), ctypes.c_void_p()
    assert lib.pt2scope_open_path(None, ctypes.byref(h), ctypes.byref(prob)) == -9 and not h.value
    lib.pt2scope_free(prob)
    assert lib.pt2scope_open_path(b"/nonexistent.pt2", ctypes.byref(h), None) == -10  # not-found; problem optional
    lib.pt2scope_close(None)
    lib.pt2scope_free(None)


@pytest.mark.parametrize("request_text,detail", [
    (b"[1]", "a request is a JSON object"),
    (b"{\"targets\": \"H100\"}", "\"targets\" must be an array of strings"),
    (b"{\"device\": 1}", "\"device\" must be a string"),
    (b"{\"view\": \"x\"}", "unknown view 'x' (only \"oip\")"),
    (b"{\"node\": 1}", "\"node\" must be true or false"),
    (b"{\"driver\": \"twelve\"}", None),
    (b"{", None),
])
def test_bad_requests(request_text, detail):
    lib = _native.library()
    h = _native.LocalBackend()._open(fixture("cpu_x86_64.pt2"))
    out = ctypes.c_void_p()
    try:
        assert lib.pt2scope_inspect(h, request_text, ctypes.byref(out)) == -9
    finally:
        lib.pt2scope_close(h)
    import json

    problem = json.loads(_native._take_text(lib, out))
    assert problem["type"] == "https://pt2scope.dev/problems/bad-request" and problem["status"] == 400
    if detail is not None:
        assert problem["detail"] == detail


def _run(code, env):
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                         cwd=tempfile.gettempdir())
    return out.returncode, out.stdout.strip(), out.stderr.strip()


def test_library_found_through_PT2SCOPE_LIBRARY():
    tmp = tempfile.mkdtemp(prefix="pt2scope-py-lib-")
    try:
        shutil.copytree(os.path.join(PKG_DIR, "pt2scope"), os.path.join(tmp, "pt2scope"),
                        ignore=shutil.ignore_patterns("*.so", "__pycache__"))
        code = "import pt2scope; print(pt2scope.get_package_arch_info(%r).cuda_compute_capability)" % fixture(
            "cuda_sm90a_v8.pt2")
        env = dict(os.environ, PYTHONPATH=tmp)
        env.pop("PT2SCOPE_LIBRARY", None)
        rc, out, err = _run(code, env)
        assert rc == 1 and "ImportError: pt2scope: cannot load %s/pt2scope/libpt2scope.so" % tmp in err
        env["PT2SCOPE_LIBRARY"] = os.path.abspath(SHLIB)
        assert _run(code, env)[:2] == (0, "9.0")
    finally:
        shutil.rmtree(tmp)


def test_pip_install_offline():
    """`pip install ./service/python` with no index at all: the in-tree backend needs nothing."""
    tmp = tempfile.mkdtemp(prefix="pt2scope-py-pip-")
    try:
        env = dict(os.environ, PIP_INDEX_URL="http://127.0.0.1:9/simple", PIP_RETRIES="0", PIP_TIMEOUT="2",
                   PIP_DISABLE_PIP_VERSION_CHECK="1")
        out = subprocess.run([sys.executable, "-m", "pip", "install", "--target", tmp, PKG_DIR], env=env,
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stdout + out.stderr
        assert sorted(set(os.listdir(os.path.join(tmp, "pt2scope"))) - {"__pycache__"}) == [
            "__init__.py", "_api.py", "_native.py", "client.py", "errors.py", "libpt2scope.so", "types.py"]
        assert os.path.isdir(os.path.join(tmp, "pt2scope-0.1.0.dist-info"))
        env = dict(os.environ, PYTHONPATH=tmp)
        env.pop("PT2SCOPE_LIBRARY", None)
        code = ("import pt2scope; assert pt2scope.__file__.startswith(%r); "
                "print(pt2scope.get_package_arch_info(%r).cuda_gpu_description)") % (tmp, fixture("cuda_sm90a_v8.pt2"))
        assert _run(code, env)[:2] == (0, "Hopper (GH100): H100, H200, H800, H20, GH200")
    finally:
        shutil.rmtree(tmp)


def test_wheel_from_make_python():
    wheel = os.path.join(BUILD, "python", "pt2scope-0.1.0-py3-none-linux_x86_64.whl")
    import zipfile

    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        record = z.read("pt2scope-0.1.0.dist-info/RECORD").decode()
    assert {"pt2scope/__init__.py", "pt2scope/libpt2scope.so", "pt2scope-0.1.0.dist-info/WHEEL",
            "pt2scope-0.1.0.dist-info/METADATA"} <= names
    assert all(n in record for n in names)


def test_many_threads_same_answers():
    names = ["cuda_sm90a_v8.pt2", "cuda_fatbin_multi.pt2", "cpu_x86_64.pt2", "export_save_compact.pt2",
             "broken_not_zip.pt2", "rocm_gfx90a.pt2"]

    def answers(name):
        out = []
        try:
            out.append(pt2scope.inspect(fixture(name), targets=["H100", "8.0"]).raw)
            out.append(pt2scope.check(fixture(name), device=1).raw)
            out.append(pt2scope.validate(fixture(name), {"x": (2, 3, 16, 16)}).raw)
        except pt2scope.Pt2ScopeError as e:
            out.append((type(e).__name__, e.problem))
        return out

    expected = {n: answers(n) for n in names}
    for doc in expected.values():
        for d in doc:
            if isinstance(d, dict) and "package" in d:
                d["package"].pop("read_calls", None)
    failures = []

    def worker(k):
        for i in range(25):
            n = names[(k + i) % len(names)]
            got = answers(n)
            for d in got:
                if isinstance(d, dict) and "package" in d:
                    d["package"].pop("read_calls", None)
            if got != expected[n]:
                failures.append(n)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def _rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_no_leak_over_10000_calls():
    ok, bad = fixture("cuda_sm90a_v8.pt2"), fixture("broken_bad_aoti_json.pt2")
    m = pt2scope.load_package_metadata(ok)

    def call(i):
        k = i % 5
        if k == 0:
            pt2scope.get_package_arch_info(ok)
        elif k == 1:
            pt2scope.check_device_compatibility(ok, 1)
        elif k == 2:
            pt2scope.validate_input_shapes(m, {"image": (2, 3, 512, 512), "scale": (3,)})
        elif k == 3:
            pt2scope.inspect(ok, targets=["H100"])
        else:
            try:
                pt2scope.load_package_metadata(bad)
            except pt2scope.MetadataInvalid:
                pass

    for i in range(2000):  # warm-up: caches, arenas, the driver
        call(i)
    before = _rss_kib()
    for i in range(10000):
        call(i)
    grown = _rss_kib() - before
    # 10,000 calls; a leak of one answer (about 4 KiB) each would be 40 MiB, of 100 bytes 1 MiB.
    print("RSS growth over 10,000 calls: %d KiB" % grown)
    assert grown < 768, "RSS grew by %d KiB over 10,000 calls" % grown
