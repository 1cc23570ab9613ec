"""Every name of the table on the fixtures and the corpus, over both backends.

Backends: "library" (the module functions, libpt2scope.so over ctypes),
"upload" (a Client uploading the local file to pt2scoped) and "root" (a
Client naming the file under the daemon's model root). Expected values are
exact: the fixtures' own (tests/fixtures/build.py wrote them) or the CLI's
answer for the same package (the same library through its other front end).
"""

import os

import pytest

import pt2scope
from conftest import CORPUS, cli_json, corpus_packages, fixture

GOOD = sorted(
    f for f in os.listdir(os.path.join(os.path.dirname(__file__), "..", "fixtures"))
    if f.endswith(".pt2") and not f.startswith(("broken_", "torch_save"))
)
BROKEN = {
    "broken_not_zip.pt2": (pt2scope.NotAZip, "not-a-zip"),
    "broken_truncated.pt2": (pt2scope.Truncated, "truncated"),
    "broken_cd_corrupt.pt2": (pt2scope.Truncated, "truncated"),
    "broken_no_archive_format.pt2": (pt2scope.NotAPt2, "not-a-pt2"),
    "broken_bad_aoti_json.pt2": (pt2scope.MetadataInvalid, "metadata-invalid"),
    "torch_save_checkpoint.pt2": (pt2scope.TorchSaveCheckpoint, "torch-save-checkpoint"),
}
SM90A = "cuda_sm90a_v8.pt2"
AVX512 = "x86-64 Linux shared object, AVX-512 (avx512f, avx512dq, avx512vl, avx512bw, fma), -march=native"
HOPPER = "Hopper (GH100): H100, H200, H800, H20, GH200"


@pytest.fixture(params=["library", "upload", "root"])
def backend(request):
    """(api, ref): the functions and how they name a fixture."""
    if request.param == "library":
        return pt2scope, fixture
    client = pt2scope.Client(request.getfixturevalue("daemon"))
    if request.param == "upload":
        return client, fixture
    return client, client.root


def test_names_are_exported():
    for name in ("PackageArchInfo", "get_package_arch_info", "check_device_compatibility", "TensorSpec",
                 "PackageMetadata", "load_package_metadata", "validate_input_shapes", "_DYNAMIC", "inspect",
                 "check", "validate", "Client", "Pt2ScopeError", "NotAZip", "TorchSaveCheckpoint"):
        assert hasattr(pt2scope, name), name
    for fn in ("get_package_arch_info", "check_device_compatibility", "load_package_metadata",
               "validate_input_shapes", "inspect", "check", "validate"):
        assert callable(getattr(pt2scope.Client, fn)), fn


def test_arch_info_exact(backend):
    api, ref = backend
    info = api.get_package_arch_info(ref(SM90A))
    assert isinstance(info, pt2scope.PackageArchInfo)
    assert (info.cuda_compute_capability, info.cuda_gpu_description, info.cpu_description) == ("9.0", HOPPER, AVX512)
    cpu = api.get_package_arch_info(ref("cpu_x86_64.pt2"))
    assert (cpu.cuda_compute_capability, cpu.cuda_gpu_description, cpu.cpu_description) == (None, None, AVX512)
    ep = api.get_package_arch_info(ref("export_program.pt2"))
    assert (ep.cuda_compute_capability, ep.cuda_gpu_description, ep.cpu_description) == (None, None, None)


@pytest.mark.parametrize("name", GOOD)
def test_arch_info_every_fixture_matches_cli(backend, name):
    api, ref = backend
    arch = cli_json("inspect", fixture(name))["arch"]
    info = api.get_package_arch_info(ref(name))
    assert info == pt2scope.PackageArchInfo(arch["cuda_compute_capability"], arch["cuda_gpu_description"],
                                            arch["cpu_description"])
    assert info.raw == arch


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_unreadable_archives_raise_their_problem_type(backend, name):
    api, ref = backend
    cls, slug = BROKEN[name]
    for fn in (api.get_package_arch_info, api.load_package_metadata, api.inspect):
        with pytest.raises(cls) as e:
            fn(ref(name))
        assert isinstance(e.value, pt2scope.Pt2ScopeError)
        assert e.value.problem["type"] == "https://pt2scope.dev/problems/" + slug
        assert e.value.status == 422
        assert e.value.detail and e.value.title


def test_missing_file_errors():
    # the problem the daemon answers for a missing file, over either backend
    with pytest.raises(pt2scope.NotFound) as e:
        pt2scope.get_package_arch_info(fixture("no_such.pt2"))
    assert e.value.status == 404 and "no_such.pt2" in e.value.detail


def test_missing_and_outside_root(daemon):
    c = pt2scope.Client(daemon)
    with pytest.raises(pt2scope.NotFound) as e:
        c.get_package_arch_info(c.root("no_such.pt2"))
    assert e.value.status == 404
    with pytest.raises(pt2scope.OutsideRoot) as e:
        c.get_package_arch_info(c.root("../Makefile"))
    assert e.value.status == 403


def test_tensor_spec_and_metadata_exact(backend):
    api, ref = backend
    m = api.load_package_metadata(ref(SM90A))
    assert isinstance(m, pt2scope.PackageMetadata)
    assert m.model == "SegmentationNet"
    assert [s.name for s in m.inputs] == ["image", "scale"]
    assert [s.name for s in m.outputs] == ["mask"]
    image = m.inputs[0]
    assert isinstance(image, pt2scope.TensorSpec)
    assert image.shape == (pt2scope._DYNAMIC, 3, 512, 512)
    assert image.dtype == "float32"
    assert image.description == "RGB image"
    assert image.fixed_shape == {1: 3, 2: 512, 3: 512}
    assert image.ndim == 4
    assert image.shape_description() == "(B, 3, 512, 512)"
    assert m.inputs[1].shape == (pt2scope._DYNAMIC,) and m.inputs[1].shape_description() == "(B)"
    assert m.outputs[0].shape_description() == "(B, 1, 512, 512)"
    assert m.raw["source"] == "extra/model_metadata.json"
    assert m.raw["raw"]["framework"] == "torch 2.9"


def test_metadata_from_exported_program_and_wrapper(backend):
    api, ref = backend
    ep = api.load_package_metadata(ref("export_save_compact.pt2"))
    assert ep.raw["source"] == "serialized_exported_program.json"
    assert [(s.name, s.shape, s.dtype) for s in ep.inputs] == [
        ("x", (pt2scope._DYNAMIC, 3, pt2scope._DYNAMIC, pt2scope._DYNAMIC), "float32"),
        ("lengths", (pt2scope._DYNAMIC,), "int64"),
        ("mask", (pt2scope._DYNAMIC, pt2scope._DYNAMIC), "bool"),
    ]
    assert [s.shape_description() for s in ep.inputs] == ["(s0, 3, s1, s1)", "(s0)", "(s0, s1)"]
    assert [(s.name, s.shape) for s in ep.outputs] == [("mean", (pt2scope._DYNAMIC, 8))]
    w = api.load_package_metadata(ref("cuda_check_functions_v8.pt2"))
    assert w.raw["source"].endswith(".wrapper.cpp")
    dyn = pt2scope._DYNAMIC
    assert [(s.name, s.shape, s.dtype, s.fixed_shape, s.ndim, s.shape_description()) for s in w.inputs] == [
        ("arg0_1", (dyn, 10), "bfloat16", {1: 10}, 2, "(s0, 10)"),
        ("arg1_1", (dyn, dyn), "float8_e4m3fn", {}, 2, "(?, s1)"),
        ("arg2_1", (4,), "int64", {0: 4}, 1, "(4)"),
        ("arg3_1", (8, 7), "bool", {0: 8, 1: 7}, 2, "(8, 7)"),
        ("arg4_1", (dyn,), "float16", {}, 1, "(?)"),
    ]


@pytest.mark.parametrize("name", GOOD)
def test_metadata_every_fixture_matches_cli(backend, name):
    api, ref = backend
    meta = cli_json("inspect", fixture(name))["metadata"]
    m = api.load_package_metadata(ref(name))
    assert m.raw == meta
    assert [s.name for s in m.inputs] == [s["name"] for s in meta["inputs"] or []]
    assert [s.shape_description() for s in m.outputs] == [s["shape_description"] for s in meta["outputs"] or []]


@pytest.mark.parametrize("path", corpus_packages() or [pytest.param(None, marks=pytest.mark.skip(reason="no corpus at " + CORPUS))])
def test_corpus_packages_both_backends(daemon, path):
    doc = cli_json("inspect", path)
    client = pt2scope.Client(daemon)
    for api in (pt2scope, client):
        info = api.get_package_arch_info(path)
        assert (info.cuda_compute_capability, info.cuda_gpu_description, info.cpu_description) == (
            doc["arch"]["cuda_compute_capability"], doc["arch"]["cuda_gpu_description"], doc["arch"]["cpu_description"])
        m = api.load_package_metadata(path)
        assert m.raw == doc["metadata"]
        assert [s.shape_description() for s in m.inputs] == [s["shape_description"] for s in doc["metadata"]["inputs"]]
        fixed = {s.name: tuple(d if isinstance(d, int) else 4 for d in s.shape or ()) for s in m.inputs}
        for dev in (None, 1):
            assert api.check_device_compatibility(path, dev) == cli_message(path, dev)
        expected = pt2scope.validate(path, fixed)  # the library, asked directly
        assert api.validate_input_shapes(m, fixed) == (None if expected.valid else "; ".join(expected.errors))


def cli_message(path, device):
    """The CLI's overall answer for --device (the oracle of check_device_compatibility)."""
    o = cli_json("check", path, "--device", "cuda" if device is None else "cuda:%d" % device)["overall"]
    if o["verdict"] != "incompatible":
        return None
    return o["reason"] + (" " + o["advice"] if o["advice"] else "")


def test_corpus_mlcolvar_exact():
    path = os.path.join(CORPUS, "mlcolvar__descriptor_based_inputs_model.pt2")
    if not os.path.exists(path):
        assert os.environ.get("PT2SCOPE_REQUIRE_CORPUS") != "1", "no corpus at " + CORPUS
        pytest.skip("no corpus at " + CORPUS)
    m = pt2scope.load_package_metadata(path)
    assert [(s.name, s.shape) for s in m.inputs] == [("arg10_1", (1, 45))]
    assert pt2scope.validate_input_shapes(m, {"arg10_1": (1, 45)}) is None
    assert pt2scope.validate_input_shapes(m, {"arg10_1": (2, 45)}) == "input 'arg10_1' axis 0: expected 1, got 2"


class Shape:
    """Anything with .shape, as torch tensors have."""

    def __init__(self, *dims):
        self.shape = dims


def test_validate_input_shapes_valid_forms(backend):
    api, ref = backend
    m = api.load_package_metadata(ref(SM90A))
    np = pytest.importorskip("numpy")
    assert api.validate_input_shapes(m, {"image": (8, 3, 512, 512), "scale": (8,)}) is None
    assert api.validate_input_shapes(m, {"image": [8, 3, 512, 512], "scale": [8]}) is None
    assert api.validate_input_shapes(m, {"image": np.zeros((2, 3, 512, 512), dtype=np.uint8),
                                         "scale": np.zeros(2)}) is None
    assert api.validate_input_shapes(m, {"image": Shape(np.int64(4), 3, 512, 512), "scale": Shape(4)}) is None


def test_validate_input_shapes_numpy_violation(backend):
    np = pytest.importorskip("numpy")
    api, ref = backend
    m = api.load_package_metadata(ref(SM90A))
    got = api.validate_input_shapes(m, {"image": np.zeros((2, 3, 256, 512)), "scale": np.zeros(3)})
    assert got == ("input 'image' axis 2: expected 512, got 256; "
                   "input 'scale' axis 0: dynamic dim 'B' is 2 in input 'image' but 3 here")


def test_validate_input_shapes_every_violation_kind(backend):
    api, ref = backend
    m = api.load_package_metadata(ref("export_save_compact.pt2"))
    assert api.validate_input_shapes(m, {"x": (8, 3, 16, 16), "lengths": (8,), "mask": (8, 16)}) is None
    # dynamic bounds (above and below), a fixed dim, the rank, a missing input
    assert api.validate_input_shapes(m, {"x": (64, 4, 8, 8), "lengths": (9, 9)}) == (
        "input 'x' axis 0: dynamic dim 's0' must be in [1, 32], got 64; "
        "input 'x' axis 1: expected 3, got 4; "
        "input 'x' axis 2: dynamic dim 's1' must be >= 16, got 8; "
        "input 'x' axis 3: dynamic dim 's1' must be >= 16, got 8; "
        "input 'lengths': expected 1 dimension (s0), got 2; "
        "missing input 'mask'")
    # one size per shared dynamic dim across inputs, an unknown input
    assert api.validate_input_shapes(m, {"x": (8, 3, 16, 16), "lengths": (9,), "mask": (8, 17), "extra": (1,)}) == (
        "unknown input 'extra' (expected: x, lengths, mask); "
        "input 'lengths' axis 0: dynamic dim 's0' is 8 in input 'x' but 9 here; "
        "input 'mask' axis 1: dynamic dim 's1' is 16 in input 'x' but 17 here")
    result = api.validate(ref("export_save_compact.pt2"), {"x": (8, 3, 16, 16)})
    assert (result.valid, result.errors) == (False, ["missing input 'lengths'", "missing input 'mask'"])


def test_validate_input_shapes_bad_arguments():
    m = pt2scope.load_package_metadata(fixture(SM90A))
    with pytest.raises(TypeError):
        pt2scope.validate_input_shapes(m, {"image": (8, 3.5, 512, 512)})
    with pytest.raises(TypeError):
        pt2scope.validate_input_shapes(m, {"image": 7})
    with pytest.raises(TypeError):
        pt2scope.validate_input_shapes(m, [("image", (1, 3, 512, 512))])
    with pytest.raises(ValueError):
        pt2scope.validate_input_shapes(pt2scope.PackageMetadata("M", [], [], {}), {})
    with pytest.raises(pt2scope.BadRequest) as e:
        pt2scope.validate_input_shapes(m, {"image": (-1, 3, 512, 512), "scale": (1,)})
    assert e.value.problem["type"].endswith("/bad-request")


def test_inspect_document_typed(backend):
    api, ref = backend
    doc = api.inspect(ref("cuda_fatbin_multi.pt2"), targets=["H100", "8.0"], driver="12.4")
    assert isinstance(doc, pt2scope.Inspection)
    assert doc.arch.cuda_compute_capability == "7.5"
    assert [(v.target, v.kind) for v in doc.compatibility][:2] == [("H100", "target"), ("8.0", "target")]
    assert len(doc.compatibility) == 2  # the targets are the question: this node is not asked
    violations = api.validate(ref(SM90A), {"image": (8, 3, 511, 512), "scale": (8,)}).violations
    assert violations == [{"input": "image", "axis": 2, "expected": "512", "got": 511, "code": "size",
                           "message": "input 'image' axis 2: expected 512, got 511"}]
    assert doc.overall.verdict == doc.raw["overall"]["verdict"]
    assert doc.raw["arch"] == doc.arch.raw and doc.metadata.raw == doc.raw["metadata"]
    assert doc.bytes_read == doc.raw["bytes_read"] > 0
    oip = api.inspect(ref(SM90A), view="oip")
    assert oip.raw["metadata"]["platform"] == "pytorch_aoti"
    assert oip.raw["metadata"]["inputs"][0] == {"name": "image", "datatype": "FP32", "shape": [-1, 3, 512, 512]}


def test_model_selects_one_of_several(backend):
    """model= judges one model, as torch's loader given a model_name loads only it."""
    api, ref = backend
    both = api.check(ref("multi_model.pt2"), targets=["H100"])
    assert both.overall.verdict == "incompatible"
    assert [(m["model"], m["code"]) for m in both.compatibility[0].raw["models"]] == [
        ("model", "compatible"), ("model2", "arch-mismatch")]
    one = api.check(ref("multi_model.pt2"), targets=["H100"], model="model")
    assert one.overall.verdict == "compatible" and "models" not in one.compatibility[0].raw
    doc = api.inspect(ref("multi_model.pt2"), model="model2", node=False)
    assert (doc.raw["package"]["model"], [m["name"] for m in doc.raw["models"]]) == ("model2", ["model2"])
    assert api.validate(ref("multi_model.pt2"), {"image": [1, 3, 512, 512], "scale": [1]}, model="model").valid
    with pytest.raises(pt2scope.NotFound) as e:
        api.check(ref("multi_model.pt2"), targets=["H100"], model="nope")
    assert "available models: model, model2" in str(e.value)


def test_check_verdicts(backend):
    api, ref = backend
    r = api.check(ref(SM90A), targets=["H100", "A100"])
    assert isinstance(r, pt2scope.CheckResult)
    assert [(v.target, v.verdict) for v in r.compatibility] == [("H100", "compatible"), ("A100", "incompatible")]
    assert r.overall.verdict == "incompatible" and r.overall.advice
    cli = cli_json("check", fixture(SM90A), "--target", "H100", "--target", "A100")
    assert r.raw["overall"] == cli["overall"]
    assert [v.raw for v in r.compatibility] == cli["compatibility"]
    node = api.check(ref(SM90A))
    # this node's GPUs and CPU, then its runtime (as `pt2scope check` without targets)
    assert [(v.target, v.kind, v.verdict) for v in node.compatibility] == [
        ("cuda:0", "gpu", "compatible"), ("cuda:1", "gpu", "incompatible"), ("cpu", "cpu", "compatible"),
        ("local", "runtime", "compatible")]
    rt = api.check(ref(SM90A), targets=["H100"], runtime=["rhel8", "debian12,torch=2.9"])
    assert [(v.target, v.kind, v.verdict) for v in rt.compatibility] == [
        ("H100", "target", "compatible"), ("rhel8", "runtime", "compatible"),
        ("debian12,torch=2.9", "runtime", "compatible")]
    arm = api.check(ref(SM90A), targets=["H100"], driver="13.0", platform="linux/arm64")
    assert (arm.overall.verdict, arm.compatibility[0].raw["code"],
            arm.compatibility[0].device["platform"]) == ("incompatible", "host-platform", "linux/arm64")
    with pytest.raises(pt2scope.BadRequest):
        api.check(ref(SM90A), targets=["H100"], platform="linux/riscv64")
    with pytest.raises(pt2scope.BadRequest):
        api.check(ref(SM90A), runtime="debian99")
    assert node.overall.verdict == "compatible"
    with pytest.raises(pt2scope.BadRequest):
        api.check(ref(SM90A), targets=["not-a-gpu"])
    what_if = pt2scope.check(fixture(SM90A), driver="12.4", device=0)
    assert (what_if.overall.verdict, what_if.compatibility[0].device["driver_cuda_version"]) == ("incompatible", 12040)
    if api is not pt2scope:
        with pytest.raises(ValueError):
            api.check(ref(SM90A), driver="12.4")


def test_same_answers_either_way(daemon):
    """Library and daemon, on every good fixture: the same document."""
    client = pt2scope.Client(daemon)
    for name in GOOD:
        local = pt2scope.inspect(fixture(name), targets=["H100", "8.0"], driver="12.4").raw
        remote = client.inspect(client.root(name), targets=["H100", "8.0"], driver="12.4").raw
        for key in ("arch", "metadata", "models", "warnings", "scheduling", "compatibility", "overall"):
            assert local[key] == remote[key], (name, key)
        for dev in (None, 0, 1, "cuda:1"):
            assert pt2scope.check_device_compatibility(fixture(name), dev) == \
                client.check_device_compatibility(client.root(name), dev), (name, dev)
        m1, m2 = pt2scope.load_package_metadata(fixture(name)), client.load_package_metadata(client.root(name))
        shapes = {s.name: tuple(d if isinstance(d, int) else 2 for d in (s.shape or ())) for s in m1.inputs}
        for extra in ({}, {"bogus": (1,)}):
            answers = []
            for api, m in ((pt2scope, m1), (client, m2)):
                try:
                    answers.append(api.validate_input_shapes(m, dict(shapes, **extra)))
                except pt2scope.Pt2ScopeError as e:  # a package that records no inputs
                    answers.append((type(e), e.problem["type"], e.detail))
            assert answers[0] == answers[1], (name, extra)


def test_urls_both_backends(daemon, fileserver):
    url = fileserver + SM90A
    local = pt2scope.inspect(url, node=False)
    assert local.raw["package"]["source"]["url"] == url
    client = pt2scope.Client(daemon)
    remote = client.inspect(url)
    assert remote.raw["package"]["source"]["url"] == url
    assert local.arch == remote.arch and local.metadata.raw == remote.metadata.raw
    assert client.get_package_arch_info(url).cuda_compute_capability == "9.0"
    m = client.load_package_metadata(url)
    assert client.validate_input_shapes(m, {"image": (1, 3, 512, 512), "scale": (2,)}) == \
        "input 'scale' axis 0: dynamic dim 'B' is 1 in input 'image' but 2 here"
    with pytest.raises(pt2scope.NotFound):
        pt2scope.get_package_arch_info(fileserver + "no_such.pt2")
    with pytest.raises(pt2scope.NotFound):
        client.get_package_arch_info(fileserver + "no_such.pt2")
    with pytest.raises(pt2scope.RemoteRefused) as e:
        client.get_package_arch_info("http://example.invalid/x.pt2")
    assert e.value.status == 403


def test_bytes_are_packages_too(daemon):
    with open(fixture(SM90A), "rb") as f:
        data = f.read()
    assert pt2scope.get_package_arch_info(data).cuda_compute_capability == "9.0"
    assert pt2scope.Client(daemon).get_package_arch_info(data).cuda_compute_capability == "9.0"
    with pytest.raises(pt2scope.NotAZip):
        pt2scope.get_package_arch_info(b"not a zip at all")
    with pytest.raises(TypeError):
        pt2scope.get_package_arch_info(42)


def test_etag_reuse(daemon):
    client = pt2scope.Client(daemon)
    first = client.inspect(client.root(SM90A)).raw
    assert client._backend.revalidated == 0
    second = client.inspect(client.root(SM90A)).raw
    assert client._backend.revalidated == 1 and second == first
    client.get_package_arch_info(fixture(SM90A))
    client.get_package_arch_info(fixture(SM90A))  # an upload: the daemon's 304 for the same bytes
    assert client._backend.revalidated == 2


def test_token(token_daemon):
    with pytest.raises(pt2scope.Unauthorized) as e:
        pt2scope.Client(token_daemon).get_package_arch_info(pt2scope.Client.root(SM90A))
    assert e.value.status == 401
    with pytest.raises(pt2scope.Unauthorized):
        pt2scope.Client(token_daemon, token="wrong").get_package_arch_info(pt2scope.Client.root(SM90A))
    info = pt2scope.Client(token_daemon, token="s3cret-token").get_package_arch_info(pt2scope.Client.root(SM90A))
    assert info.cuda_compute_capability == "9.0"


def test_every_library_slug_has_a_class():
    """The slugs of pt2scope.h's status enum: one exception class each, named by its slug."""
    import re

    header = open(os.path.join(os.path.dirname(__file__), "..", "..", "service", "include", "pt2scope.h")).read()
    enum = header[header.index("enum pt2_status {"):header.index("#define PT2_ERR_LAST")]
    slugs = set(re.findall(r'\("([a-z0-9-]+)"\)', enum))
    assert len(slugs) == 24
    for slug in slugs:
        cls = pt2scope.errors.error_class(slug)
        assert cls is not pt2scope.Pt2ScopeError and cls.slug == slug, slug
    assert pt2scope.errors.error_class("some-future-slug") is pt2scope.Pt2ScopeError
