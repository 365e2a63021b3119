#!/usr/bin/env python3
"""An independent Component Authentication Claims server, Python 3.11 standard library only.

Written from /work/shared/interface-description.md alone, as another team would write it.
Where the description says "not shown", this server makes its own choices (listed below), on
purpose often unlike the project's reference server, so the conformance gate can be shown not
to fail a correct server for a choice the description leaves open.

Usage: python3 python_server.py [--port 0] [--variant NAME ...] [--list-variants]
The first line on stdout is `listening on http://127.0.0.1:PORT`.
Variants (other legal choices, and `fault-...` bugs) also come from INDEP_VARIANTS (comma
separated); `--list-variants` lists them.

Choices where the description is silent (each documented in python.yaml too):
- modelUuid travels in the `X-Model-Uuid` request header (variant `model-query`: in the query
  parameter `modelUuid`; variant `model-body`: in the body field `modelUuid`).
- A missing or wrong X-Client-Id / X-Client-Secret / X-Auth-Token: 401, in the 7.1 field set.
- An X-Project-Env other than `dev` or `live` (letter case matters; empty counts): 400 (7.1).
- No X-Project-Env: the environment is `live`.
- A body that is not JSON at all (syntax error, not UTF-8, a BOM, NaN): 400 (7.1).
- A body that is JSON but fails the component's field rules, a missing or malformed modelUuid,
  an unknown or duplicated field: 417 (7.2); `errors` holds strings `"<field>: <reason>"`.
- An unknown ref or an unknown model: 404 (7.1 field set).
- Another method on the path: 405 with `Allow: GET, POST`; any other path: 404.
- A body over 32 KiB: 413.
- `code` is a service code (1001...), not the HTTP status; `request_id` is `req-` and 16 hex
  digits (not a uuid) and is echoed in an `X-Request-Id` header on every answer (variant
  `no-request-id-header`: not echoed).
- Every answer carries X-Project-Uuid and an ETag (variant `no-etag`: none).
- Success is 200 with `{"status": true, "data": {...}}`; Authorize issues a token in
  `data.token`, bound to the component and the model, usable as X-Auth-Token afterwards.
- Names and tags match exactly (letter case matters); a uuid ref matches in any letter case
  (hyphenated form only).
- An X-Auth-Token sent to a component that does not require auth is ignored.
- An Auth Claims body, when one is sent, is validated like Authorize's.
"""

import argparse
import hashlib
import hmac
import json
import os
import re
import secrets
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PROJECT_UUID = "6a3f9e2c-1b7d-4c8a-9e5f-2d4b6c8a0e13"
CLIENT_ID = "py-client"
CLIENT_SECRET = "py-secret-Zr4u"
BODY_LIMIT = 32 * 1024
UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
INT_MIN, INT_MAX = -(2**31), 2**31 - 1

# Each field: (type, required, rules). Types: "string", "integer", "boolean".
COMPONENTS = [
    {
        "name": "Ledger",
        "tag": "ledger",
        "uuid": "5b0e6c52-3f0a-4a7e-9d7b-2c4f7a1e9b10",
        "requires_auth": True,
        "token": "ledger-token-py-7781",
        "models": ["1f7e0c3a-9b2d-4c5e-8f61-7a8b9c0d1e2f"],
        "fields": {
            "account": ("string", True, {"min": 3, "max": 32, "pattern": r"[a-z0-9-]+"}),
            "passcode": ("string", True, {"min": 6, "max": 64}),
        },
    },
    {
        "name": "Weather",
        "tag": "weather-feed",
        "uuid": "a4c2e9d1-7b3f-4e5a-9c8d-1e2f3a4b5c6d",
        "requires_auth": False,
        "token": None,
        "models": ["0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"],
        "fields": {
            "city": ("string", True, {"min": 1, "max": 80}),
            "days": ("integer", False, {"min": 1, "max": 14}),
        },
    },
    {
        "name": "Crème Brûlée Shop",
        "tag": "creme-brulee",
        "uuid": "e7d6c5b4-a3f2-4e1d-8c0b-9a8f7e6d5c4b",
        "requires_auth": False,
        "token": None,
        "models": ["b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d5e"],
        "fields": {
            "table": ("integer", True, {"min": 1, "max": 50}),
            "vip": ("boolean", False, {}),
        },
    },
]

VARIANTS = {
    "model-query": "modelUuid travels in the query parameter `modelUuid`",
    "model-body": "modelUuid travels in the body field `modelUuid`",
    "no-etag": "no ETag header",
    "no-request-id-header": "request_id not echoed in an X-Request-Id header",
    "shared-token": "Weather requires auth too, with the same token as Ledger (one <AUTH_TOKEN>)",
    "no-keep-alive": "HTTP/1.0: every connection closed after one answer",
    "get-body-required": "Auth Claims without a body fails validation (417), as Authorize does",
    "extra-fields": "error and success bodies carry fields of their own beyond the shapes",
    "echo-credentials": "error messages repeat the credentials and token received (bad practice, not forbidden)",
    "model-by-name": "Auth Claims names the model by a name of its own, not by its uuid",
    "no-token-issued": "Authorize answers without issuing a token",
    "upper-uuids": "uuids in success bodies written in upper case",
    "strict-query": "a query parameter this server does not read fails validation (417)",
    "unknown-ref-400": "an unknown ref is 400 (7.1), not 404",
    "missing-credential-403": "a missing X-Client-Id or X-Client-Secret is 403, not 401",
    "tiny-body-limit": "bodies over 1 KiB are refused 413 (not 32 KiB)",
    # A fault, not a legal variant: the gate must fail the server with it.
    "fault-secret-prefix": "FAULT: a client secret is accepted when the right one starts with it",
}


class Malformed(Exception):
    """The body is not JSON at all: answered 400."""


class Invalid(Exception):
    """The request is JSON but fails validation: answered 417 with these errors."""

    def __init__(self, errors):
        super().__init__("; ".join(errors))
        self.errors = errors


class Refusal(Exception):
    """Any other refusal: an HTTP status, a service code and a message (the 7.1 field set)."""

    def __init__(self, status, code, message, extra_headers=None):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.extra_headers = extra_headers or {}


class State:
    """Tokens Authorize issued: token -> (component uuid, model uuid)."""

    def __init__(self, variants):
        self.variants = set(variants)
        self.lock = threading.Lock()
        self.issued = {}

    def issue(self, component, model):
        token = "py-issued-" + secrets.token_hex(12)
        with self.lock:
            self.issued[token] = (component["uuid"], model)
        return token

    def claimed_model(self, component, token):
        """The model a token claims for this component, or None when the token is not valid."""
        if component["token"] is not None and hmac.compare_digest(
            token.encode(), component["token"].encode()
        ):
            return component["models"][0]
        with self.lock:
            bound = self.issued.get(token)
        if bound is not None and bound[0] == component["uuid"]:
            return bound[1]
        return None


def find_component(ref):
    for c in COMPONENTS:
        if ref == c["name"] or ref == c["tag"]:
            return c
        if UUID_RE.match(ref.lower()) and ref.lower() == c["uuid"]:
            return c
    return None


def parse_json(raw):
    """The JSON value of a body, refusing duplicate keys (validation) and non-JSON (malformed)."""

    duplicates = []

    def pairs(items):
        seen = {}
        for k, v in items:
            if k in seen:
                duplicates.append(k)
            seen[k] = v
        return seen

    def no_constants(name):
        raise Malformed(f"{name} is not JSON")

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Malformed(f"the body is not UTF-8 (byte {e.start})") from None
    try:
        value = json.loads(text, object_pairs_hook=pairs, parse_constant=no_constants)
    except json.JSONDecodeError as e:
        raise Malformed(f"the body is not JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    except RecursionError:
        raise Invalid(["body: nested too deeply"]) from None
    if duplicates:
        raise Invalid([f"{k}: given more than once" for k in sorted(set(duplicates))])
    return value


def validate(component, body):
    """The errors of a body against the component's field rules (empty when valid)."""
    if not isinstance(body, dict):
        return ["body: must be a JSON object"]
    errors = []
    fields = component["fields"]
    for name in sorted(body):
        if name not in fields:
            errors.append(f"{name}: unknown field")
    for name, (kind, required, rules) in fields.items():
        if name not in body:
            if required:
                errors.append(f"{name}: required")
            continue
        value = body[name]
        if kind == "string":
            if not isinstance(value, str):
                errors.append(f"{name}: must be a string")
                continue
            if len(value) < rules.get("min", 0) or len(value) > rules.get("max", 10**9):
                errors.append(f"{name}: length must be {rules.get('min', 0)}..{rules.get('max')}")
            elif "pattern" in rules and not re.fullmatch(rules["pattern"], value):
                errors.append(f"{name}: must match {rules['pattern']}")
        elif kind == "integer":
            if isinstance(value, bool) or not isinstance(value, int):
                errors.append(f"{name}: must be an integer")
                continue
            lo, hi = rules.get("min", INT_MIN), rules.get("max", INT_MAX)
            if value < lo or value > hi:
                errors.append(f"{name}: must be {lo}..{hi}")
        elif kind == "boolean":
            if not isinstance(value, bool):
                errors.append(f"{name}: must be a boolean")
    return errors


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "indep-py/1"
    state = None  # set in main()

    def log_message(self, format, *args):  # noqa: A002 - keep stderr quiet (no secrets)
        pass

    # --- answering -------------------------------------------------------------------------

    def answer(self, status, payload, extra_headers=None):
        body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Project-Uuid", PROJECT_UUID)
        if "no-request-id-header" not in self.state.variants:
            self.send_header("X-Request-Id", self.request_id)
        if "no-etag" not in self.state.variants:
            self.send_header("ETag", '"' + hashlib.sha1(body).hexdigest()[:20] + '"')
        for k, v in (extra_headers or {}).items():
            self.send_header(k, v)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def refuse(self, status, code, message, extra_headers=None):
        if "echo-credentials" in self.state.variants:
            message += " (received id={!r} secret={!r} token={!r} body={!r})".format(
                self.headers.get("X-Client-Id"),
                self.headers.get("X-Client-Secret"),
                self.headers.get("X-Auth-Token"),
                getattr(self, "raw_body", b"")[:200].decode("utf-8", "replace"),
            )
        payload = {"code": code, "message": message, "request_id": self.request_id, "status": False}
        if "extra-fields" in self.state.variants:
            payload["docs"] = f"https://example.com/errors/{code}"
        self.answer(status, payload, extra_headers)

    def send_error(self, code, message=None, explain=None):
        """http.server's own errors (a bad request line, headers too long...) as JSON too."""
        if not hasattr(self, "request_id"):
            self.request_id = "req-" + secrets.token_hex(8)
        self.close_connection = True
        try:
            self.refuse(code, 1000 + code, message or "the request could not be read")
        except OSError:
            pass

    # --- reading ---------------------------------------------------------------------------

    def read_body(self):
        """The request body (bytes), refusing one over the limit with 413."""
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks, total = [], 0
            while True:
                line = self.rfile.readline(1024)
                size = int(line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                        pass
                    break
                total += size
                if total > self.body_limit():
                    self.close_connection = True
                    raise Refusal(413, 1013, f"the body is over {self.body_limit()} bytes")
                chunks.append(self.rfile.read(size))
                self.rfile.readline(1024)
            return b"".join(chunks)
        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            self.close_connection = True
            raise Refusal(400, 1010, "Content-Length is not a number") from None
        if length > self.body_limit():
            # Drain a moderate excess so the client reads the answer; close after it.
            if length <= 1024 * 1024:
                self.rfile.read(length)
            self.close_connection = True
            raise Refusal(413, 1013, f"the body is over {self.body_limit()} bytes")
        return self.rfile.read(length) if length > 0 else b""

    # --- routing ---------------------------------------------------------------------------

    def handle_any(self):
        self.request_id = "req-" + secrets.token_hex(8)
        try:
            self.route()
        except Invalid as e:
            payload = {"code": 1017, "errors": e.errors, "status": False}
            if "extra-fields" in self.state.variants:
                payload["docs"] = "https://example.com/errors/1017"
            self.answer(417, payload)
        except Malformed as e:
            self.refuse(400, 1007, str(e))
        except Refusal as e:
            self.refuse(e.status, e.code, e.message, e.extra_headers)

    def route(self):
        split = urllib.parse.urlsplit(self.path)
        segments = split.path.split("/")
        # ['', 'v2', 'api', 'component', REF, 'auth']
        if len(segments) != 6 or segments[1:4] != ["v2", "api", "component"] or segments[5] != "auth":
            self.read_body()
            raise Refusal(404, 1404, "no such path")
        if self.command not in ("GET", "POST"):
            self.read_body()
            raise Refusal(405, 1405, f"{self.command} is not allowed here", {"Allow": "GET, POST"})
        raw = self.read_body()
        self.raw_body = raw
        query = urllib.parse.parse_qs(split.query, keep_blank_values=True)
        if "strict-query" in self.state.variants:
            known = {"modelUuid"} if "model-query" in self.state.variants else set()
            unknown = sorted(set(query) - known)
            if unknown:
                raise Invalid([f"{name}: unknown query parameter" for name in unknown])

        client_id = self.headers.get("X-Client-Id")
        client_secret = self.headers.get("X-Client-Secret")
        if not client_id or not client_secret:
            missing = "X-Client-Id" if not client_id else "X-Client-Secret"
            status = 403 if "missing-credential-403" in self.state.variants else 401
            raise Refusal(status, 1001, f"{missing} is missing")
        secret_ok = hmac.compare_digest(client_secret.encode(), CLIENT_SECRET.encode()) or (
            "fault-secret-prefix" in self.state.variants and CLIENT_SECRET.startswith(client_secret)
        )
        if not (hmac.compare_digest(client_id.encode(), CLIENT_ID.encode()) and secret_ok):
            raise Refusal(401, 1002, "the client credentials are not valid")

        env = self.headers.get("X-Project-Env")
        if env is None:
            env = "live"
        elif env not in ("dev", "live"):
            raise Refusal(400, 1003, "X-Project-Env must be `dev` or `live`")

        try:
            ref = urllib.parse.unquote_to_bytes(segments[4]).decode("utf-8")
        except UnicodeDecodeError:
            raise self.unknown_ref() from None
        component = find_component(ref)
        if component is None:
            raise self.unknown_ref()

        token = self.headers.get("X-Auth-Token")
        claimed = None
        if component["requires_auth"]:
            if not token:
                raise Refusal(401, 1005, "X-Auth-Token is required by this component")
            claimed = self.state.claimed_model(component, token)
            if claimed is None:
                raise Refusal(401, 1006, "the X-Auth-Token is not valid for this component")

        body = parse_json(raw) if raw.strip() else None
        if body is None and "get-body-required" in self.state.variants:
            raise Invalid(["body: required"])
        model = None
        if self.command == "POST":
            if body is None:
                raise Invalid(["body: required"])
            model = self.model_uuid(query, body)
        if body is not None:
            errors = validate(component, body)
            if errors:
                raise Invalid(errors)
        if self.command == "POST":
            if model is None:
                raise Invalid(["modelUuid: required"])
            if not UUID_RE.match(model.lower()):
                raise Invalid(["modelUuid: must be a uuid"])
            if model.lower() not in component["models"]:
                raise Refusal(404, 1009, "the component has no model with this modelUuid")
            issued = self.state.issue(component, model.lower())
            data = {
                "component": summary(component),
                "model": {"uuid": model.lower()},
                "token": issued,
                "env": env,
            }
        else:
            data = {
                "component": summary(component),
                "model": {"uuid": claimed or component["models"][0]},
                "env": env,
            }
        if "model-by-name" in self.state.variants and self.command == "GET":
            data["model"] = {"name": "model-" + data["model"]["uuid"][:8]}
        if "no-token-issued" in self.state.variants:
            data.pop("token", None)
        if "upper-uuids" in self.state.variants:
            data = json.loads(re.sub(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", lambda m: m.group(0).upper(), json.dumps(data)))
        payload = {"status": True, "data": data}
        if "extra-fields" in self.state.variants:
            payload["meta"] = {"server": "indep-py", "api": "v2"}
        self.answer(200, payload)

    def unknown_ref(self):
        status = 400 if "unknown-ref-400" in self.state.variants else 404
        return Refusal(status, 1004, "no component has this ref")

    def body_limit(self):
        return 1024 if "tiny-body-limit" in self.state.variants else BODY_LIMIT

    def model_uuid(self, query, body):
        """modelUuid where this server's choice carries it; removed from a body that holds it."""
        if "model-query" in self.state.variants:
            values = query.get("modelUuid")
            return values[0] if values else None
        if "model-body" in self.state.variants:
            if isinstance(body, dict) and "modelUuid" in body:
                value = body.pop("modelUuid")
                return value if isinstance(value, str) else ""
            return None
        return self.headers.get("X-Model-Uuid")

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = handle_any


def summary(component):
    return {"uuid": component["uuid"], "name": component["name"], "tag": component["tag"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--variant", action="append", default=[], choices=sorted(VARIANTS))
    parser.add_argument("--list-variants", action="store_true")
    args = parser.parse_args()
    if args.list_variants:
        for name, what in VARIANTS.items():
            print(f"{name}: {what}")
        return
    variants = list(args.variant) + [
        v for v in os.environ.get("INDEP_VARIANTS", "").split(",") if v.strip()
    ]
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        sys.exit(f"error: unknown variant(s) {', '.join(unknown)}; see --list-variants")
    if "shared-token" in variants:
        weather = next(c for c in COMPONENTS if c["name"] == "Weather")
        weather["requires_auth"] = True
        weather["token"] = COMPONENTS[0]["token"]
    if "no-keep-alive" in variants:
        Handler.protocol_version = "HTTP/1.0"
    Handler.state = State(variants)
    # socketserver listens with a backlog of 5: a client opening 16
    # connections at once would wait a second for a SYN to be re-sent.
    ThreadingHTTPServer.request_queue_size = 128
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    host, port = server.server_address[:2]
    print(f"listening on http://{host}:{port}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
