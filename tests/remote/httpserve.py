#!/usr/bin/env python3
"""Loopback HTTP/1.1 servers for the remote tests (stdlib only; servers.sh starts them).

  httpserve.py changing --port-file F --log F [--mode strict|ignore] [--after N] VERSION...
      One object, served at every path. VERSION... are files, the object's successive
      contents; after every N requests (default 1) the object is replaced by the next
      version (new bytes, new ETag, maybe a new size), until the last. Single byte ranges
      (first-last, first-, -suffix) get 206 with Content-Range, an unsatisfiable one 416
      with "Content-Range: bytes */SIZE", several ranges or a bad Range header the whole
      object (200). mode strict: If-Match that names no current ETag is 412, If-Range that
      does not match gives the whole object (200). mode ignore: both headers are ignored,
      so a client only sees the change by the new ETag.

  httpserve.py slow --port-file F --log F --delay S [--stall headers|body] DIR
      Files from DIR; each request waits S seconds: before the status line (headers), or
      after the headers and the first byte of the body (body). Range is honoured.

Each request is logged before its response is sent (so a client that has its answer can
read its line), one line, tab-separated:
  METHOD PATH RANGE IF-MATCH IF-RANGE STATUS BODY-BYTES ETAG      ("-" for an absent header)
--parent PID: exit when PID is gone (a test that dies leaves no server behind).
"""
import argparse
import hashlib
import http.server
import os
import re
import socketserver
import sys
import threading
import time


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        # A client that gives up (its timeout) is what the slow server is for.
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


def parse_range(header, size):
    """None: serve the whole object; 'bad': 416; (start, end) inclusive."""
    if header is None:
        return None
    m = re.fullmatch(r"\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*", header)
    if not m or (m.group(1) == "" and m.group(2) == ""):
        return None  # several ranges, another unit or bad syntax: ignore the header
    first, last = m.group(1), m.group(2)
    if first == "":  # suffix
        n = int(last)
        if n == 0 or size == 0:
            return "bad"
        return (max(0, size - n), size - 1)
    start = int(first)
    if start >= size:
        return "bad"
    end = size - 1 if last == "" else min(int(last), size - 1)
    if end < start:
        return None  # last < first is an invalid range-spec: ignore
    return (start, end)


def etag_list_matches(header, etag):
    if header.strip() == "*":
        return True
    return etag in [t.strip() for t in header.split(",")]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "pt2scope-test"

    def log_message(self, fmt, *args):  # quiet: the request log is ours
        pass

    def log_line(self, status, nbytes, etag):
        h = self.headers
        fields = [self.command, self.path, h.get("Range", "-"), h.get("If-Match", "-"),
                  h.get("If-Range", "-"), str(status), str(nbytes), etag or "-"]
        line = "\t".join(f.replace("\t", " ") for f in fields) + "\n"
        with self.server.log_lock:
            with open(self.server.log_path, "a") as f:
                f.write(line)

    def send_object(self, data, etag, honour_if_range=True, before_body=None):
        """Answer GET/HEAD for DATA (bytes) with ETAG, honouring Range and If-Range."""
        size = len(data)
        rng = parse_range(self.headers.get("Range"), size)
        if rng is not None and honour_if_range and self.headers.get("If-Range") is not None:
            if self.headers.get("If-Range").strip() != etag:
                rng = None
        if rng == "bad":
            self.log_line(416, 0, etag)
            self.send_response(416)
            self.send_header("Content-Range", "bytes */%d" % size)
            self.send_header("Content-Length", "0")
            self.send_header("ETag", etag)
            self.end_headers()
            return
        if rng is None:
            status, body = 200, data
        else:
            status, body = 206, data[rng[0]:rng[1] + 1]
        head = self.command == "HEAD"
        self.log_line(status, 0 if head else len(body), etag)
        if before_body == "headers":
            time.sleep(self.server.delay)
        self.send_response(status)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("ETag", etag)
        if status == 206:
            self.send_header("Content-Range", "bytes %d-%d/%d" % (rng[0], rng[1], size))
        self.end_headers()
        if head:
            return
        if before_body == "body" and body:
            self.wfile.write(body[:1])
            self.wfile.flush()
            time.sleep(self.server.delay)
            body = body[1:]
        self.wfile.write(body)

    def not_allowed(self):
        self.log_line(405, 0, None)
        self.send_response(405)
        self.send_header("Allow", "GET, HEAD")
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_POST = do_PUT = do_DELETE = not_allowed


class ChangingHandler(Handler):
    def do_GET(self):
        srv = self.server
        with srv.state_lock:
            data, etag = srv.versions[srv.current]
            srv.served += 1
            if srv.served % srv.after == 0 and srv.current + 1 < len(srv.versions):
                srv.current += 1  # replaced once this request is answered
        if srv.mode == "strict":
            im = self.headers.get("If-Match")
            if im is not None and not etag_list_matches(im, etag):
                self.log_line(412, 0, etag)
                self.send_response(412)
                self.send_header("Content-Length", "0")
                self.send_header("ETag", etag)
                self.end_headers()
                return
        self.send_object(data, etag, honour_if_range=(srv.mode == "strict"))

    do_HEAD = do_GET


class SlowHandler(Handler):
    def do_GET(self):
        name = self.path.split("?", 1)[0].lstrip("/")
        path = os.path.join(self.server.root, name)
        if "/" in name or name in ("", ".", "..") or not os.path.isfile(path):
            self.log_line(404, 0, None)
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        with open(path, "rb") as f:
            data = f.read()
        etag = '"%s"' % hashlib.sha256(data).hexdigest()[:16]
        self.send_object(data, etag, before_body=self.server.stall)

    do_HEAD = do_GET


def watch_parent(pid):
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            os._exit(0)
        except PermissionError:
            pass
        time.sleep(0.2)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kind", choices=["changing", "slow"])
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--parent", type=int)
    ap.add_argument("--mode", choices=["strict", "ignore"], default="strict")
    ap.add_argument("--after", type=int, default=1)
    ap.add_argument("--delay", type=float, default=5.0)
    ap.add_argument("--stall", choices=["headers", "body"], default="headers")
    ap.add_argument("paths", nargs="+")
    a = ap.parse_args()

    handler = ChangingHandler if a.kind == "changing" else SlowHandler
    srv = Server(("127.0.0.1", 0), handler)
    srv.log_path = a.log
    srv.log_lock = threading.Lock()
    if a.kind == "changing":
        if a.after < 1:
            sys.exit("httpserve.py: --after must be at least 1")
        srv.versions = []
        for i, p in enumerate(a.paths, 1):
            with open(p, "rb") as f:
                data = f.read()
            srv.versions.append((data, '"v%d-%s"' % (i, hashlib.sha256(data).hexdigest()[:16])))
        srv.current = srv.served = 0
        srv.mode, srv.after = a.mode, a.after
        srv.state_lock = threading.Lock()
    else:
        if len(a.paths) != 1 or not os.path.isdir(a.paths[0]):
            sys.exit("httpserve.py: slow serves one directory")
        srv.root, srv.delay, srv.stall = a.paths[0], a.delay, a.stall
    open(a.log, "a").close()
    if a.parent:
        threading.Thread(target=watch_parent, args=(a.parent,), daemon=True).start()
    tmp = a.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(srv.server_address[1]))
    os.replace(tmp, a.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    main()
