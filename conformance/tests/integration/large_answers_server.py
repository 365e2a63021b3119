#!/usr/bin/env python3
"""The independent Python server (tests/independent/python_server.py) with every JSON answer
grown to about PAD_KIB KiB (default 900, under the runner's 1 MiB cap) by a `padding` field.

The padding is many small objects, the shape that costs a parsed JSON tree the most memory
per byte. It is the same for the same request, so a run's snapshots are stable; it starts
with the request's method and the answer's status, so answers differ from one another; and it
changes with PAD_SEED, so a run with another seed meets changed content, as a drifted
server would give.

Usage: python3 large_answers_server.py [--port 0]; environment PAD_SEED (default 1), PAD_KIB.
The first line on stdout is `listening on http://127.0.0.1:PORT`.
"""

import hashlib
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "independent"))
import python_server  # noqa: E402

SEED = os.environ.get("PAD_SEED", "1")
KIB = int(os.environ.get("PAD_KIB", "900"))


def _items():
    """The shared padding: `{"id":N,"label":"...","ok":B}` items, about KIB KiB of them."""
    out, size, n = [], 0, 0
    while size < KIB * 1024:
        label = hashlib.sha256(f"{SEED}/{n}".encode()).hexdigest()[:16]
        item = json.dumps({"id": n, "label": label, "ok": n % 2 == 0}, separators=(",", ":"))
        out.append(item)
        size += len(item) + 1
        n += 1
    return ",".join(out).encode()


ITEMS = _items()


def answer(self, status, payload, extra_headers=None):
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    if isinstance(payload, dict):
        head = json.dumps({"for": f"{self.command} {status}"}).encode()
        body = body[:-1] + (b"," if payload else b"") + b'"padding":[' + head + b"," + ITEMS + b"]}"
    self.send_response(status)
    self.send_header("Content-Type", "application/json")
    self.send_header("Content-Length", str(len(body)))
    self.send_header("X-Project-Uuid", python_server.PROJECT_UUID)
    self.send_header("X-Request-Id", self.request_id)
    self.send_header("ETag", '"' + hashlib.sha1(body).hexdigest()[:20] + '"')
    for k, v in (extra_headers or {}).items():
        self.send_header(k, v)
    if self.close_connection:
        self.send_header("Connection", "close")
    self.end_headers()
    if self.command != "HEAD":
        self.wfile.write(body)


python_server.Handler.answer = answer

if __name__ == "__main__":
    python_server.main()
