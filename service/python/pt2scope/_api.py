"""The functions, over either backend (the library, or a pt2scoped).

A backend answers three questions with the library's documents: inspect,
check and validate a package it names its own way. Everything here turns
Python arguments into those requests and documents into dataclasses.
"""

import operator
from collections.abc import Mapping

from .types import CheckResult, Inspection, PackageArchInfo, PackageMetadata, Validation


def _device_spelling(device):
    """torch's spellings of a device as the library's: "current", "cuda:1", "rocm:0"."""
    if device is None:
        return "current"
    if isinstance(device, bool):
        raise TypeError("device must be a torch.device, an int, a str or None, not bool")
    if isinstance(device, int):
        if device < 0:
            raise ValueError("device index must be >= 0, got %d" % device)
        return "cuda:%d" % device
    if isinstance(device, str):
        return "current" if device.strip() == "cuda" else device
    kind = getattr(device, "type", None)
    if isinstance(kind, str):
        index = getattr(device, "index", None)
        if index is None:
            return "current" if kind == "cuda" else kind
        return "%s:%d" % (kind, operator.index(index))
    raise TypeError("device must be a torch.device, an int, a str or None, not %s" % type(device).__name__)


def _shape_of(name, value):
    """The dims of anything with .shape (tensors, arrays) or of a shape itself (tuple, list)."""
    shape = getattr(value, "shape", value)
    try:
        dims = list(shape)
    except TypeError:
        raise TypeError("input %r: expected a tensor, an array or a shape tuple, got %s" % (name, type(value).__name__)) from None
    out = []
    for d in dims:
        if isinstance(d, bool):
            raise TypeError("input %r: dimension %r is not an integer" % (name, d))
        try:
            out.append(operator.index(d))
        except TypeError:
            raise TypeError("input %r: dimension %r is not an integer" % (name, d)) from None
    return out


def _message(verdict):
    return verdict.reason + (" " + verdict.advice if verdict.advice else "")


class Api:
    """The pt2scope functions over one backend."""

    def __init__(self, backend):
        self._backend = backend

    def _request(self, targets=None, driver=None, device=None, runtime=None, **extra):
        req = {}
        if targets is not None:
            if isinstance(targets, str):
                targets = [targets]
            req["targets"] = [str(t) for t in targets]
        if runtime is not None:
            if isinstance(runtime, str):
                runtime = [runtime]
            req["runtimes"] = [str(r) for r in runtime]
        if driver is not None:
            req["driver"] = str(driver)
        if device is not None:
            req["device"] = device
        req.update({k: v for k, v in extra.items() if v is not None})
        return req

    def _device(self, device):
        spelled = _device_spelling(device)
        return self._backend.current_device() if spelled == "current" else spelled

    def inspect(self, path_or_url, targets=None, driver=None, device=None, node=True, view=None,
                runtime=None, sysroot=None, libtorch=None, platform=None, model=None):
        """The full inspection document: arch, metadata, package, models, runtime needs,
        warnings, and the verdicts for `targets` (and this node's GPUs, or only `device`, and
        CPU unless node=False). `driver` ("12.4") is the CUDA driver the targets have,
        `platform` ("linux/arm64", "windows/amd64") their nodes' OS and architecture.
        `runtime` ("debian12,torch=2.8", or a list) adds a runtime verdict per spec; `sysroot`
        (a mounted image) and `libtorch` (a libtorch_cpu.so or its folder) judge the library's
        needs exactly (the local library only). `model` ("model2") judges that model of a
        package with several only, as torch's loader given a model_name loads only it."""
        dev = self._device(device) if device is not None else None
        doc = self._backend.inspect(path_or_url, self._request(targets, driver, dev, runtime, node=node, view=view,
                                                               sysroot=sysroot, libtorch=libtorch,
                                                               platform=platform, model=model))
        return Inspection.from_json(doc, (self._backend, path_or_url))

    def check(self, path_or_url, targets=None, driver=None, device=None, runtime=None,
              sysroot=None, libtorch=None, platform=None, model=None):
        """The verdicts for `targets`, or without targets for this node (every GPU, or only
        `device`, then the CPU, and this machine's runtime); `runtime`, `sysroot`,
        `libtorch` and `model` as for inspect: a CheckResult with `overall`."""
        dev = self._device(device) if device is not None and not targets else None
        return CheckResult.from_json(self._backend.check(
            path_or_url, self._request(targets, driver, dev, runtime, sysroot=sysroot, libtorch=libtorch,
                                       platform=platform, model=model)))

    def validate(self, path_or_url, inputs, model=None):
        """Validation of proposed input shapes {name: tensor, array or shape} (of model `model`
        of a package with several, when given)."""
        if not isinstance(inputs, Mapping):
            raise TypeError("inputs must be a mapping of input name to tensor, array or shape")
        shapes = {str(k): _shape_of(k, v) for k, v in inputs.items()}
        return Validation.from_json(self._backend.validate(path_or_url, shapes, model))

    def get_package_arch_info(self, path):
        """What the package was compiled for; raises a Pt2ScopeError on an unreadable archive."""
        doc = self._backend.inspect(path, {"node": False})
        return PackageArchInfo.from_json(doc.get("arch"))

    def check_device_compatibility(self, path, device=None):
        """None when the package runs on `device`, else why not (and what to do).

        `device`: a torch.device, an int index, "cuda"/"cuda:1", or None. None and a bare
        "cuda" mean the device the worker was given: torch.cuda.current_device() when torch
        is imported, else the device of the driver's current context, else the first
        visible device."""
        result = self.check(path, device=device if device is not None else "cuda")
        return None if result.overall.ok else _message(result.overall)

    def load_package_metadata(self, path):
        """The model name and tensor specs from whatever the package records; raises a
        Pt2ScopeError on an unreadable archive or metadata."""
        doc = self._backend.inspect(path, {"node": False})
        return PackageMetadata.from_json(doc.get("metadata"), (self._backend, path))

    def validate_input_shapes(self, metadata, inputs):
        """None when `inputs` (name -> tensor, array or shape) fit the package `metadata`
        came from, else one message listing every violation."""
        source = getattr(metadata, "_source", None)
        if source is None:
            raise ValueError("validate_input_shapes needs metadata from load_package_metadata or inspect")
        backend, ref = source
        result = Api(backend).validate(ref, inputs)
        return None if result.valid else "; ".join(result.errors)
