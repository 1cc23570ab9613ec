"""The local backend: libpt2scope.so over ctypes (pt2scope.h, "Bindings").

The library is found through $PT2SCOPE_LIBRARY, else next to this file
(`make python` puts it there, and the wheel carries it). Every call opens
the package, asks, and closes it; the answers are the library's JSON text
and its failures its problem documents. ctypes releases the GIL around each
call and the library is thread-safe, so threads inspect in parallel.
"""

import ctypes
import json
import os
import sys
import threading

from . import errors

ABI_VERSION = 2
_URL_SCHEMES = ("http://", "https://", "s3://")

_lib = None
_lib_lock = threading.Lock()


def library_path():
    return os.environ.get("PT2SCOPE_LIBRARY") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "libpt2scope.so")


def _load():
    path = library_path()
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise ImportError(
            "pt2scope: cannot load %s (%s); build it with `make python` or set PT2SCOPE_LIBRARY" % (path, e)
        ) from None
    lib.pt2scope_abi_version.restype = ctypes.c_int
    lib.pt2scope_abi_version.argtypes = []
    found = lib.pt2scope_abi_version()
    if found != ABI_VERSION:
        raise ImportError("pt2scope: %s has ABI version %d, this package needs %d" % (path, found, ABI_VERSION))
    pp = ctypes.POINTER(ctypes.c_void_p)
    lib.pt2scope_version.restype = ctypes.c_char_p
    lib.pt2scope_version.argtypes = []
    lib.pt2scope_open_path.argtypes = [ctypes.c_char_p, pp, pp]
    lib.pt2scope_open_url.argtypes = [ctypes.c_char_p, pp, pp]
    lib.pt2scope_open_buffer.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, pp, pp]
    lib.pt2scope_open_model.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, pp, pp]
    for fn in (lib.pt2scope_inspect, lib.pt2scope_check, lib.pt2scope_validate):
        fn.argtypes = [ctypes.c_void_p, ctypes.c_char_p, pp]
        fn.restype = ctypes.c_int
    for fn in (lib.pt2scope_open_path, lib.pt2scope_open_url, lib.pt2scope_open_buffer, lib.pt2scope_open_model):
        fn.restype = ctypes.c_int
    lib.pt2scope_close.argtypes = [ctypes.c_void_p]
    lib.pt2scope_close.restype = None
    lib.pt2scope_free.argtypes = [ctypes.c_void_p]
    lib.pt2scope_free.restype = None
    return lib


def library():
    """The loaded library (loaded on first use)."""
    global _lib
    if _lib is None:
        with _lib_lock:
            if _lib is None:
                _lib = _load()
    return _lib


def is_url(ref):
    return isinstance(ref, str) and ref[:8].lower().startswith(_URL_SCHEMES)


def _take_text(lib, ptr):
    """The text at a library-owned pointer, freed."""
    if not ptr.value:
        return None
    try:
        return ctypes.string_at(ptr.value).decode("utf-8", "replace")
    finally:
        lib.pt2scope_free(ptr)


def _raise(lib, rc, ptr):
    text = _take_text(lib, ptr)
    if text is None:
        raise errors.InternalError({"type": errors.PROBLEM_BASE + "internal", "status": 500, "detail": "out of memory (status %d)" % rc})
    raise errors.from_problem(json.loads(text))


class LocalBackend:
    """Packages on this machine (paths, URLs, bytes), answered by libpt2scope.so."""

    remote = False

    def _open(self, ref, model=None):
        lib = library()
        handle = ctypes.c_void_p()
        problem = ctypes.c_void_p()
        m = model.encode() if model is not None else None
        if isinstance(ref, (bytes, bytearray, memoryview)):
            data = bytes(ref)
            rc = lib.pt2scope_open_model(None, data, len(data), m, ctypes.byref(handle), ctypes.byref(problem))
        elif is_url(ref):
            rc = lib.pt2scope_open_model(ref.encode(), None, 0, m, ctypes.byref(handle), ctypes.byref(problem))
        elif isinstance(ref, (str, os.PathLike)):
            rc = lib.pt2scope_open_model(os.fsencode(ref), None, 0, m, ctypes.byref(handle), ctypes.byref(problem))
        else:
            raise TypeError("a package is a path, a URL or bytes, not %s" % type(ref).__name__)
        if rc != 0:
            _raise(lib, rc, problem)
        return handle

    def _ask(self, fn_name, ref, text, model=None):
        lib = library()
        handle = self._open(ref, model)
        out = ctypes.c_void_p()
        try:
            rc = getattr(lib, fn_name)(handle, text.encode(), ctypes.byref(out))
        finally:
            lib.pt2scope_close(handle)
        if rc != 0:
            _raise(lib, rc, out)
        return json.loads(_take_text(lib, out))

    def inspect(self, ref, request):
        request = dict(request)
        model = request.pop("model", None)
        return self._ask("pt2scope_inspect", ref, json.dumps(request), model)

    def check(self, ref, request):
        request = dict(request)
        model = request.pop("model", None)
        return self._ask("pt2scope_check", ref, json.dumps(request), model)

    def validate(self, ref, shapes, model=None):
        return self._ask("pt2scope_validate", ref, json.dumps(shapes), model)

    def current_device(self):
        """None ("the device the worker was given") as this process knows it: torch's
        current device when torch is already imported, else the library's "current"
        (the thread's CUDA context, else the first visible GPU, else the whole node)."""
        torch = sys.modules.get("torch")
        if torch is not None:
            try:
                return "cuda:%d" % int(torch.cuda.current_device())
            except Exception:  # torch without CUDA, or no GPU: the driver decides
                pass
        return "current"
