"""PEP 517 build backend for the pt2scope package, standard library only.

Why not setuptools: pip builds a pyproject.toml project in an isolated
environment and would download setuptools into it, which an offline machine
cannot; Debian's pip also refuses to see its own setuptools there. A wheel
is a zip of the package files plus three metadata files (PEP 427), which
this writes directly. The wheel is tagged for this platform when the shared
library (pt2scope/libpt2scope.so, from `make python`) is inside it, else as
pure Python (the package then finds the library through PT2SCOPE_LIBRARY).
"""

import base64
import hashlib
import os
import sysconfig
import tarfile
import zipfile

NAME = "pt2scope"
VERSION = "0.1.0"
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(HERE, NAME)
DIST_INFO = "%s-%s.dist-info" % (NAME, VERSION)
METADATA = (
    "Metadata-Version: 2.1\n"
    "Name: %s\n"
    "Version: %s\n"
    "Summary: What a PyTorch AOTInductor .pt2 package was compiled for, and whether it runs here\n"
    "Requires-Python: >=3.9\n" % (NAME, VERSION)
)


def _files():
    """(archive name, path) of every file the package ships, sorted."""
    out = []
    for root, dirs, files in os.walk(PACKAGE):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for f in sorted(files):
            if f.endswith((".py", ".so")):
                path = os.path.join(root, f)
                out.append((os.path.relpath(path, HERE).replace(os.sep, "/"), path))
    return out


def _tag(files):
    if any(name.endswith(".so") for name, _ in files):
        plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
        return "py3", "none", plat
    return "py3", "none", "any"


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d\n" % (name, digest, len(data))


def _wheel_name(files):
    return "%s-%s-%s.whl" % (NAME, VERSION, "-".join(_tag(files)))


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    files = _files()
    tag = "-".join(_tag(files))
    pure = "true" if tag.endswith("any") else "false"
    wheel_meta = "Wheel-Version: 1.0\nGenerator: pt2scope_build\nRoot-Is-Purelib: %s\nTag: %s\n" % (
        pure,
        tag,
    )
    os.makedirs(wheel_directory, exist_ok=True)
    name = _wheel_name(files)
    record = ""
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for arc, path in files:
            with open(path, "rb") as f:
                data = f.read()
            info = zipfile.ZipInfo(arc, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if arc.endswith(".so") else 0o644) << 16
            z.writestr(info, data, zipfile.ZIP_DEFLATED)
            record += _record_line(arc, data)
        for meta, text in (("METADATA", METADATA), ("WHEEL", wheel_meta)):
            arc = "%s/%s" % (DIST_INFO, meta)
            z.writestr(arc, text)
            record += _record_line(arc, text.encode())
        record += "%s/RECORD,,\n" % DIST_INFO
        z.writestr("%s/RECORD" % DIST_INFO, record)
    return name


def build_sdist(sdist_directory, config_settings=None):
    base = "%s-%s" % (NAME, VERSION)
    name = base + ".tar.gz"
    os.makedirs(sdist_directory, exist_ok=True)
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as t:
        for rel in ("pyproject.toml", "build_backend/pt2scope_build.py"):
            t.add(os.path.join(HERE, rel), arcname="%s/%s" % (base, rel))
        for arc, path in _files():
            if arc.endswith(".py"):
                t.add(path, arcname="%s/%s" % (base, arc))
        info = tarfile.TarInfo("%s/PKG-INFO" % base)
        data = METADATA.encode()
        info.size = len(data)
        import io

        t.addfile(info, io.BytesIO(data))
    return name


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []
