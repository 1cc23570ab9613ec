"""pt2scope for Python: what a .pt2 package was compiled for, and whether it runs here.

The module-level functions ask the local library (libpt2scope.so over ctypes);
Client(base_url, token=None) has the same functions answered by a pt2scoped.
Every answer and every rule is the library's; see README.md, "Python".
"""

from . import errors
from ._api import Api
from ._native import LocalBackend
from .client import Client
from .errors import *  # noqa: F401,F403 (one exception class per problem type)
from .errors import Pt2ScopeError
from .types import (
    _DYNAMIC,
    CheckResult,
    Inspection,
    PackageArchInfo,
    PackageMetadata,
    TensorSpec,
    Validation,
    Verdict,
)

__version__ = "0.1.0"

_local = Api(LocalBackend())
inspect = _local.inspect
check = _local.check
validate = _local.validate
get_package_arch_info = _local.get_package_arch_info
check_device_compatibility = _local.check_device_compatibility
load_package_metadata = _local.load_package_metadata
validate_input_shapes = _local.validate_input_shapes

__all__ = [
    "_DYNAMIC",
    "CheckResult",
    "Client",
    "Inspection",
    "PackageArchInfo",
    "PackageMetadata",
    "Pt2ScopeError",
    "TensorSpec",
    "Validation",
    "Verdict",
    "check",
    "check_device_compatibility",
    "get_package_arch_info",
    "inspect",
    "load_package_metadata",
    "validate",
    "validate_input_shapes",
] + [n for n in errors.__all__ if n not in ("Pt2ScopeError", "error_class", "from_problem")]
