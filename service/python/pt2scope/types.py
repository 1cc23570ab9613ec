"""The library's JSON documents as dataclasses; every one keeps `.raw`.

Nothing here decides anything: each field is read from the document the
library (or pt2scoped, which serves the same documents) built.
"""

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple, Union

# A dynamic dimension in TensorSpec.shape (its symbol is in shape_description()).
_DYNAMIC = "_DYNAMIC"


@dataclass(frozen=True)
class PackageArchInfo:
    """What the package was compiled for, in words."""

    cuda_compute_capability: Optional[str]  # "9.0", or None without CUDA kernels
    cuda_gpu_description: Optional[str]  # "Hopper (GH100): H100, H200, ..."
    cpu_description: Optional[str]  # "x86-64 Linux shared object, AVX-512 (...)"
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, arch):
        arch = arch or {}
        return cls(
            arch.get("cuda_compute_capability"),
            arch.get("cuda_gpu_description"),
            arch.get("cpu_description"),
            arch,
        )


@dataclass(frozen=True)
class TensorSpec:
    """One input or output: fixed dims as ints, dynamic ones as _DYNAMIC."""

    name: str
    shape: Optional[Tuple[Union[int, str], ...]]  # None when the rank is not recorded
    dtype: Optional[str]
    description: Optional[str]
    fixed_shape: Dict[int, int]
    ndim: Optional[int]
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, spec):
        shape = spec.get("shape")
        if isinstance(shape, list):
            shape = tuple(d if isinstance(d, int) and not isinstance(d, bool) else _DYNAMIC for d in shape)
        else:
            shape = None
        fixed = {int(k): v for k, v in (spec.get("fixed_shape") or {}).items()}
        return cls(spec.get("name"), shape, spec.get("dtype"), spec.get("description"), fixed, spec.get("ndim"), spec)

    def shape_description(self):
        """The shape with its symbols, as the library writes it: "(B, 3, 512, 512)"."""
        return self.raw.get("shape_description")


@dataclass
class PackageMetadata:
    """The model's class name and its ordered input and output specs."""

    model: Optional[str]
    inputs: List[TensorSpec]
    outputs: List[TensorSpec]
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)
    # What validate_input_shapes asks: (backend, package reference); not part of equality.
    _source: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_json(cls, meta, source=None):
        meta = meta or {}
        return cls(
            meta.get("model"),
            [TensorSpec.from_json(s) for s in meta.get("inputs") or []],
            [TensorSpec.from_json(s) for s in meta.get("outputs") or []],
            meta,
            source,
        )


@dataclass(frozen=True)
class Verdict:
    """One compatibility entry, or the overall answer (target and kind None)."""

    verdict: str  # "compatible", "compatible-ptx-jit", "unverified", "incompatible"
    reason: str
    advice: Optional[str]
    target: Optional[str] = None
    kind: Optional[str] = None  # "target", "gpu", "cpu", "runtime"
    device: Optional[Dict[str, Any]] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, e):
        e = e or {}
        return cls(e.get("verdict"), e.get("reason"), e.get("advice"), e.get("target"), e.get("kind"), e.get("device"), e)

    @property
    def ok(self):
        """Not incompatible: it runs (natively, or through the driver's PTX JIT)."""
        return self.verdict != "incompatible"


@dataclass(frozen=True)
class CheckResult:
    compatibility: List[Verdict]
    overall: Verdict
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, doc):
        return cls(
            [Verdict.from_json(e) for e in doc.get("compatibility") or []],
            Verdict.from_json(doc.get("overall")),
            doc,
        )


@dataclass(frozen=True)
class Validation:
    valid: bool
    errors: List[str]  # each violation's message
    warnings: List[str]
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    # each violation as data: {input, axis, expected, got, code, message}
    violations: List[Dict[str, Any]] = field(default_factory=list, repr=False, compare=False)

    @classmethod
    def from_json(cls, doc):
        violations = [v for v in doc.get("errors") or [] if isinstance(v, dict)]
        errors = [v.get("message", "") for v in violations]
        return cls(bool(doc.get("valid")), errors, list(doc.get("warnings") or []), doc, violations)


@dataclass
class Inspection:
    """The full inspection document."""

    arch: PackageArchInfo
    metadata: PackageMetadata
    package: Dict[str, Any]
    models: List[Dict[str, Any]]
    warnings: List[str]
    bytes_read: Optional[int]
    compatibility: List[Verdict]
    overall: Optional[Verdict]
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, doc, source=None):
        overall = doc.get("overall")
        return cls(
            PackageArchInfo.from_json(doc.get("arch")),
            PackageMetadata.from_json(doc.get("metadata"), source),
            doc.get("package") or {},
            doc.get("models") or [],
            list(doc.get("warnings") or []),
            doc.get("bytes_read"),
            [Verdict.from_json(e) for e in doc.get("compatibility") or []],
            Verdict.from_json(overall) if overall is not None else None,
            doc,
        )
