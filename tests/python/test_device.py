"""check_device_compatibility's `device` forms and "the device the worker was given".

The stand-in driver (conftest: an H100 as cuda:0, an A100 as cuda:1, CUDA
13.0) answers for both backends. cuda_sm90a_v8.pt2 runs on the H100 and not
on the A100, so each form shows which GPU it named. "Current device": torch's
when torch is imported (a stand-in module here), else the device of the
calling thread's CUDA context (set through the stand-in driver's
cuDevicePrimaryCtxRetain + cuCtxSetCurrent, as torch or cupy would), else the
first visible device (CUDA_VISIBLE_DEVICES, in a child process: the driver
reads it once), else, on a node without GPUs, the whole node.
"""

import ctypes
import json
import os
import subprocess
import sys
import threading
import types

import pytest

import pt2scope
from conftest import FAKE_ENV, ROOT, cli_json, fixture

PKG = fixture("cuda_sm90a_v8.pt2")
CPU_PKG = fixture("cpu_x86_64.pt2")


class Device:
    """A stand-in torch.device: .type and .index."""

    def __init__(self, type, index=None):
        self.type = type
        self.index = index


def cli_message(device):
    """The CLI's overall answer for --device: the oracle for the message."""
    o = cli_json("check", PKG, "--device", device)["overall"]
    return None if o["verdict"] != "incompatible" else o["reason"] + (" " + o["advice"] if o["advice"] else "")


A100_MESSAGE = ('cuda:1: kernels are sm_90a only; NVIDIA A100-SXM4-40GB (cuda:1) is 8.0 Rebuild with '
                'TORCH_CUDA_ARCH_LIST="8.0;9.0a" (or "8.0+PTX;9.0a", adding PTX for forward compatibility) and '
                'aot_inductor.emit_multi_arch_kernel=True, so the package carries code for 8.0.')


@pytest.fixture(params=["library", "http"])
def api(request):
    if request.param == "library":
        return pt2scope
    return pt2scope.Client(request.getfixturevalue("daemon"))


def test_oracle():
    assert cli_message("cuda:1") == A100_MESSAGE
    assert cli_message("cuda:0") is None


@pytest.mark.parametrize("device,expected", [
    (0, None), (1, A100_MESSAGE), ("cuda:0", None), ("cuda:1", A100_MESSAGE), ("1", A100_MESSAGE),
    (Device("cuda", 0), None), (Device("cuda", 1), A100_MESSAGE), (Device("cuda"), None), ("cuda", None),
    (None, None),
])
def test_device_forms(api, device, expected):
    assert api.check_device_compatibility(PKG, device) == expected


@pytest.mark.parametrize("device", ["cuda:7", 7, Device("cuda", 7), "cpu", Device("cpu"), "cuda:x"])
def test_bad_devices_are_bad_requests(api, device):
    with pytest.raises(pt2scope.BadRequest) as e:
        api.check_device_compatibility(PKG, device)
    assert e.value.status == 400 and e.value.problem["type"].endswith("/bad-request")


@pytest.mark.parametrize("device", [-1, True, 1.0, object()])
def test_device_argument_types(device):
    with pytest.raises((TypeError, ValueError)):
        pt2scope.check_device_compatibility(PKG, device)


def test_cpu_package_on_any_device(api):
    assert api.check_device_compatibility(CPU_PKG) is None
    assert api.check_device_compatibility(CPU_PKG, 1) is None


def test_torch_current_device(monkeypatch):
    """torch already imported: its current device, never simply device 0."""
    torch = types.ModuleType("torch")
    torch.cuda = types.SimpleNamespace(current_device=lambda: 1)
    monkeypatch.setitem(sys.modules, "torch", torch)
    assert pt2scope.check_device_compatibility(PKG) == A100_MESSAGE
    assert pt2scope.check_device_compatibility(PKG, "cuda") == A100_MESSAGE
    assert pt2scope.check_device_compatibility(PKG, Device("cuda")) == A100_MESSAGE
    assert pt2scope.check_device_compatibility(PKG, 0) is None  # an explicit index wins
    torch.cuda.current_device = lambda: 0
    assert pt2scope.check_device_compatibility(PKG) is None


def test_torch_without_cuda_falls_back(monkeypatch):
    def no_cuda():
        raise AssertionError("Torch not compiled with CUDA enabled")

    torch = types.ModuleType("torch")
    torch.cuda = types.SimpleNamespace(current_device=no_cuda)
    monkeypatch.setitem(sys.modules, "torch", torch)
    assert pt2scope.check_device_compatibility(PKG) is None  # the first visible device


def _driver():
    cu = ctypes.CDLL(FAKE_ENV["PT2SCOPE_LIBCUDA"])  # the same library the probe loads
    assert cu.cuInit(0) == 0
    return cu


def _make_current(cu, ordinal):
    ctx = ctypes.c_void_p()
    assert cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), ordinal) == 0
    assert cu.cuCtxSetCurrent(ctx) == 0


def test_driver_current_context():
    """No torch: the device of this thread's current CUDA context."""
    assert "torch" not in sys.modules
    cu = _driver()
    _make_current(cu, 1)
    try:
        assert pt2scope.check_device_compatibility(PKG) == A100_MESSAGE
        assert pt2scope.check_device_compatibility(PKG, "cuda") == A100_MESSAGE
        assert pt2scope.check_device_compatibility(PKG, 0) is None
        # the GPU the context names, the CPU, and (as `pt2scope check`) this machine's runtime
        assert [v.target for v in pt2scope.check(PKG, device="cuda").compatibility] == ["cuda:1", "cpu", "local"]
        # Another thread has no context: the first visible device.
        other = []
        t = threading.Thread(target=lambda: other.append(pt2scope.check_device_compatibility(PKG)))
        t.start()
        t.join()
        assert other == [None]
    finally:
        assert cu.cuCtxSetCurrent(None) == 0
    assert pt2scope.check_device_compatibility(PKG) is None
    _make_current(cu, 0)
    try:
        assert pt2scope.check_device_compatibility(PKG) is None
    finally:
        cu.cuCtxSetCurrent(None)


def _child(code, **env):
    e = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "service", "python"))
    e.update(env)
    out = subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


ASK = ("import json, sys, pt2scope\n"
       "out = []\n"
       "for d in json.loads(sys.argv[1] if len(sys.argv) > 1 else 'null') or [None]:\n"
       "    try: out.append(pt2scope.check_device_compatibility(%r, d))\n"
       "    except pt2scope.Pt2ScopeError as e: out.append([type(e).__name__, e.detail])\n"
       "print(json.dumps(out))\n")


def test_first_visible_device_is_not_device_0():
    """CUDA_VISIBLE_DEVICES=1: the first visible GPU is the A100 (physical 1), now cuda:0."""
    got = _child(ASK % PKG, CUDA_VISIBLE_DEVICES="1")
    assert got == [A100_MESSAGE.replace("cuda:1", "cuda:0")]
    assert _child(ASK % PKG, CUDA_VISIBLE_DEVICES="1,0") == [A100_MESSAGE.replace("cuda:1", "cuda:0")]
    assert _child(ASK % PKG, CUDA_VISIBLE_DEVICES="0,1") == [None]


def test_node_without_gpus():
    """No GPU at all: the whole node answers (the CPU, and what the package lacks)."""
    assert _child(ASK % CPU_PKG, PT2SCOPE_FAKECUDA_DEVICES="") == [None]
    got = _child(ASK % PKG, PT2SCOPE_FAKECUDA_DEVICES="")
    assert got == ["the package needs an NVIDIA GPU (sm_90a); this node has none: no CUDA devices visible "
                   "(CUDA_ERROR_NO_DEVICE) Run it on a node with an NVIDIA GPU (sm_90a); `pt2scope affinity "
                   "FILE` prints a Kubernetes nodeAffinity that selects such nodes."]
    code = ASK.replace("or [None]", "") % PKG
    e = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "service", "python"), PT2SCOPE_FAKECUDA_DEVICES="")
    out = subprocess.run([sys.executable, "-c", code, "[0]"], env=e, capture_output=True, text=True, timeout=120)
    assert json.loads(out.stdout)[0][0] == "BadRequest"


def test_client_answers_for_the_daemons_node(daemon):
    client = pt2scope.Client(daemon)
    node = client.node()
    assert [g["name"] for g in node["gpus"]] == ["NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-40GB"]
    r = client.check(PKG, device=1)
    # the daemon's GPU and CPU, and its machine's runtime, as the library's check here
    assert [(v.target, v.verdict) for v in r.compatibility] == [
        ("cuda:1", "incompatible"), ("cpu", "compatible"), ("local", "compatible")]
    assert r.overall.raw == pt2scope.check(PKG, device=1).overall.raw
