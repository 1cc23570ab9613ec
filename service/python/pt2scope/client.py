"""The HTTP backend: the same functions, answered by a running pt2scoped.

A package is named three ways: a local file (or bytes) is uploaded, an
http(s):// or s3:// URL is passed on (?url=, under the daemon's
--remote-allow), and Client.root(name) names a file under the daemon's
model root (?path=). Answers are the daemon's documents, which are the
library's; a problem+json answer raises the same exception class the
library's problem would. Device checks answer for the daemon's node.

ETag reuse: each answer is kept with its ETag (at most CACHE_ENTRIES, least
recently used first out) and the next identical request sends
If-None-Match; a 304 returns the kept answer without a body. The daemon
decides the tag (the file's identity, or the digest of the bytes read), so
a changed package is a new answer.
"""

import collections
import hashlib
import http.client
import json
import os
import threading
import urllib.parse

from . import errors
from ._api import Api
from ._native import is_url

CACHE_ENTRIES = 256


class RootName(str):
    """A package under the daemon's model root (Client.root(name))."""

    __slots__ = ()


class _HttpBackend:
    remote = True

    def __init__(self, base_url, token=None, timeout=60.0):
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout
        self._cache = collections.OrderedDict()
        self._lock = threading.Lock()
        self.revalidated = 0  # answers reused after a 304 (for tests and metrics)

    # --- transport ---------------------------------------------------------
    def _connection(self):
        u = urllib.parse.urlsplit(self.base_url)
        if u.scheme not in ("http", "https") or not u.hostname:
            raise ValueError("base_url must be http://HOST[:PORT] or https://HOST[:PORT], not %r" % self.base_url)
        cls = http.client.HTTPSConnection if u.scheme == "https" else http.client.HTTPConnection
        return cls(u.hostname, u.port, timeout=self.timeout), u.path.rstrip("/")

    def _exchange(self, method, target, body, headers):
        """(status, headers, body bytes). The daemon may answer an upload before reading
        all of it (a bad option in the query) and close: the answer is still read."""
        conn, prefix = self._connection()
        try:
            try:
                conn.request(method, prefix + target, body=body, headers=headers)
            except (BrokenPipeError, ConnectionResetError):
                pass  # an early answer; getresponse() reads it
            resp = conn.getresponse()
            return resp.status, resp.headers, resp.read()
        finally:
            conn.close()

    def _send(self, method, path, query, body=None, content_type=None, key=None):
        target = path + ("?" + urllib.parse.urlencode(query, doseq=True) if query else "")
        headers = {"Accept": "application/json, application/problem+json"}
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        if content_type:
            headers["Content-Type"] = content_type
        cache_key = (method, target, key)
        with self._lock:
            kept = self._cache.get(cache_key)
        if kept is not None:
            headers["If-None-Match"] = kept[0]
        if isinstance(body, _FileBody):
            headers["Content-Length"] = str(body.size)
            try:
                status, rh, text = self._exchange(method, target, body.file, headers)
            finally:
                body.file.close()
        else:
            status, rh, text = self._exchange(method, target, body, headers)
        if status == 304 and kept is not None:
            with self._lock:
                self._cache[cache_key] = kept
                self._cache.move_to_end(cache_key)
                self.revalidated += 1
            return json.loads(kept[1])
        if status != 200:
            raise self._problem(status, text)
        text = text.decode("utf-8")
        doc = json.loads(text)
        etag = rh.get("ETag")
        if etag:
            with self._lock:
                self._cache[cache_key] = (etag, text)  # parsed anew each time: callers own answers
                self._cache.move_to_end(cache_key)
                while len(self._cache) > CACHE_ENTRIES:
                    self._cache.popitem(last=False)
        return doc

    @staticmethod
    def _problem(status, text):
        try:
            doc = json.loads(text.decode("utf-8"))
        except ValueError:
            doc = None
        if isinstance(doc, dict) and "type" in doc:
            return errors.from_problem(doc)
        return errors.Pt2ScopeError({"type": None, "status": status, "detail": "HTTP %d: %s" % (status, text[:200].decode("utf-8", "replace"))})

    # --- naming a package --------------------------------------------------
    def _ask(self, endpoint, ref, query, json_body=None):
        """GET (root name, URL) or POST (upload); json_body adds members to a JSON request."""
        query = dict(query)
        if isinstance(ref, RootName) or is_url(ref):
            member = "path" if isinstance(ref, RootName) else "url"
            if json_body is None:
                query[member] = str(ref)
                return self._send("GET", endpoint, query)
            body = dict(json_body, **{member: str(ref)})
            return self._send("POST", endpoint, query, json.dumps(body).encode(), "application/json")
        if json_body is not None:
            query.update({k: json.dumps(v) for k, v in json_body.items()})
        if isinstance(ref, (bytes, bytearray, memoryview)):
            data = bytes(ref)
            return self._send("POST", endpoint, query, data, "application/octet-stream", hashlib.sha256(data).hexdigest())
        if isinstance(ref, (str, os.PathLike)):
            path = os.fspath(ref)
            try:
                f = open(path, "rb")
            except OSError as e:
                raise errors.Unreadable({"type": errors.PROBLEM_BASE + "unreadable", "status": 500, "detail": "%s: %s" % (path, e.strerror)}) from None
            size = os.fstat(f.fileno()).st_size
            return self._send("POST", endpoint, query, _FileBody(f, size), "application/octet-stream", os.path.abspath(path))
        raise TypeError("a package is a path, a URL, bytes or Client.root(name), not %s" % type(ref).__name__)

    @staticmethod
    def _query(request):
        q = {}
        if request.get("sysroot") is not None or request.get("libtorch") is not None:
            raise ValueError("sysroot= and libtorch= name files of this machine; pt2scoped judges "
                             "its own --sysroot and --libtorch")
        if request.get("targets"):
            q["target"] = list(request["targets"])
        if request.get("runtimes"):
            q["runtime"] = list(request["runtimes"])
        for k in ("driver", "platform", "device", "view", "model"):
            if request.get(k) is not None:
                q[k] = request[k]
        return q

    def inspect(self, ref, request):
        # The whole document, as the library's binding gives it: scheduling included.
        return self._ask("/v1/inspect", ref, dict(self._query(request), affinity="1"))

    def check(self, ref, request):
        if request.get("driver") is not None and not request.get("targets"):
            # The library's check takes the driver as a what-if for this node; the
            # daemon's node answers for its own driver, so it would be silently ignored.
            raise ValueError("driver= without targets= is a what-if for the local node only; "
                             "pt2scoped answers for its own driver")
        query = self._query(request)
        # As `pt2scope check`: without targets, the machine's own runtime too (the daemon's).
        if not request.get("targets") and not request.get("runtimes"):
            query["runtime"] = ["local"]
        doc = self._ask("/v1/inspect", ref, query)
        entries = doc.get("compatibility") or []
        # The daemon adds its node's entries to the targets'; check asked for the targets only.
        if request.get("targets"):
            entries = [e for e in entries if e.get("kind") in ("target", "runtime")]
        return {"compatibility": entries, "overall": doc.get("overall")}

    def validate(self, ref, shapes, model=None):
        return self._ask("/v1/validate", ref, {"model": model} if model is not None else {},
                         {"inputs": shapes})

    def node(self):
        return self._send("GET", "/v1/node", {})

    def current_device(self):
        """The daemon's node: its first visible GPU, or, without GPUs, the whole node."""
        doc = self.node()
        return "cuda" if (doc.get("count") or 0) + len(doc.get("amd_gpus") or []) > 0 else None


class _FileBody:
    def __init__(self, file, size):
        self.file = file
        self.size = size


class Client(Api):
    """The pt2scope functions answered by a pt2scoped at `base_url` ("http://host:8080")."""

    def __init__(self, base_url, token=None, timeout=60.0):
        super().__init__(_HttpBackend(base_url, token, timeout))

    @staticmethod
    def root(name):
        """A package under the daemon's model root, by its name there."""
        return RootName(name)

    def node(self):
        """The daemon's /v1/node document."""
        return self._backend.node()
