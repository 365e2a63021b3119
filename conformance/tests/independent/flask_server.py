#!/usr/bin/env python3
"""Component Authentication Claims service (v2) on Flask, written from the
interface description alone, the way a Flask developer writes one: a
blueprint under `/v2/api`, `request.get_json()`, `abort()` with error
handlers that turn every HTTPException into JSON, `MAX_CONTENT_LENGTH`.

It is stateful: a successful Authorize records its model as the one claiming
the component in that environment (X-Project-Env), and Auth Claims returns
the recorded claim (`"claim": null` before any Authorize). Authorize issues a
token each time; tokens are never revoked.

Usage: python3 flask_server.py [--port 0] [--variant NAME ...] [--list-variants]
                               [--store FILE] [--rate-limit N] [--slow-every N --slow-for S]
The first line on stdout is `listening on http://127.0.0.1:PORT`; werkzeug's
threaded server (`threaded=True`) serves each connection in its own thread.
Variants also come from INDEP_VARIANTS (comma separated).

Deployed as production services are (`scaled.py` runs several instances
behind a round-robin balancer): `--store FILE` keeps the claims, the issued
tokens and the rate limiter's windows in a SQLite database that every
instance opens (without it, in this process's memory); `--rate-limit N`
answers a client's requests past N in a one-second window with 429 in the
400 envelope and `Retry-After`; `--slow-every N --slow-for S` holds every
Nth answer S seconds (a garbage collection, a cold cache, a slow disk).

Its choices where the description is silent:
- modelUuid travels in the Authorize JSON body, as the field `modelUuid`,
  next to the component's auth fields;
- a missing X-Client-Id / X-Client-Secret (absent or empty): 401 with
  `WWW-Authenticate: ClientSecret`; a wrong one, or a wrong X-Auth-Token:
  403; a missing X-Auth-Token where the component requires auth: 401; all
  `{code, message, request_id, status}`;
- an X-Auth-Token sent to a component that does not require auth is checked
  all the same (a wrong one is a 403);
- an X-Project-Env other than `dev` / `live` (exact letter case): 417;
  no X-Project-Env means `dev`;
- an unknown ref: 404; a modelUuid that is not one of the component's
  models (or a missing one): 417, the body failed validation;
- a body that is not JSON: 400 (Flask's own BadRequest, made JSON); an
  Authorize whose Content-Type is not JSON: 415 (Flask's get_json);
  a body over 8 KiB: 413 (werkzeug's RequestEntityTooLarge);
- 417 `errors` items are `{field, in, reason}` (`in`: body or header);
- `code` is the HTTP status times ten plus a reason digit (4030, 4031, ...);
  `request_id` is 22 url-safe base64 characters, also sent as X-Request-Id;
- X-Project-Uuid on every answer, success or error;
- success: Auth Claims 200 `{ok: true, component: {...}, env, claim}` where
  `claim` is `{model: {uuid, label}, claimed_at}` or null; Authorize 201
  `{ok: true, component, env, claim, token}`, with a `Location` header;
- names and tags match in any letter case; a uuid in any letter case
  (hyphenated only);
- an Auth Claims body is not read (a GET's body is ignored, JSON or not);
- another method on the path: 405 JSON with `Allow`; any other path: 404 JSON.

Variants (`fault-...` are bugs, not choices):
- `model-query`: modelUuid in the query parameter `modelUuid` (where our
  spec has it); the body then holds the auth fields only.
- `fault-tag-forgets-claim`: Auth Claims for a ref given by its tag ignores
  the recorded claim (answers `claim: null`).
- `fault-secret-suffix`: a client secret with anything appended is taken.
"""

from __future__ import annotations

import argparse
import base64
import hmac
import logging
import os
import re
import json
import secrets
import sqlite3
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable

from flask import Blueprint, Flask, abort, g, jsonify, request
from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import HTTPException
from werkzeug.serving import make_server

PROJECT_UUID = "2c9e4b71-d0a3-4f6e-8b15-93a7c0e4d2f8"
CLIENT_ID = "flask-client"
CLIENT_SECRET = "fl-secret-Hm7t"
BODY_LIMIT = 8 * 1024
ENVS = ("dev", "live")
DEFAULT_ENV = "dev"
UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")

VARIANTS = {
    "model-query": "modelUuid in the query parameter `modelUuid`, not in the body",
    "fault-tag-forgets-claim": "Auth Claims by tag ignores the recorded claim (a bug)",
    "fault-secret-suffix": "a client secret with anything appended is taken (a bug)",
    "fault-claims-cached": "each process caches the claims it read; only its own Authorize updates its cache (a bug behind a balancer)",
    "fault-limit-never-lifts": "the rate limiter's window is 1000 times the second its Retry-After states (a bug: the limit never lifts)",
}


# --- auth-section settings: one rule per body field --------------------------------------------


@dataclass(frozen=True)
class Rule:
    kind: type
    required: bool = True
    check: Callable[[Any], str | None] = lambda _v: None


def length(lo: int, hi: int) -> Callable[[Any], str | None]:
    return lambda v: None if lo <= len(v) <= hi else f"must be {lo} to {hi} characters"


def between(lo: int, hi: int) -> Callable[[Any], str | None]:
    return lambda v: None if lo <= v <= hi else f"must be between {lo} and {hi}"


def pattern(expr: str) -> Callable[[Any], str | None]:
    rx = re.compile(expr)
    return lambda v: None if rx.fullmatch(v) else f"must match {expr}"


@dataclass(frozen=True)
class Model:
    uuid: str
    label: str


@dataclass(frozen=True)
class Component:
    name: str
    tag: str
    uuid: str
    requires_auth: bool
    tokens: tuple[str, ...]
    models: tuple[Model, ...]
    auth_fields: dict[str, Rule] = field(default_factory=dict)


COMPONENTS: tuple[Component, ...] = (
    Component(
        name="Vault",
        tag="vault-v2",
        uuid="6e0a5c3b-41f2-4d8e-a7b9-0c1d2e3f4a5b",
        requires_auth=True,
        tokens=("vault-token-fl-3141",),
        models=(
            Model("d4e5f6a7-b8c9-4d0e-9f1a-2b3c4d5e6f70", "vault-operator"),
            Model("e5f6a7b8-c9d0-4e1f-8a2b-3c4d5e6f7081", "vault-auditor"),
        ),
        auth_fields={
            "username": Rule(str, check=pattern(r"[a-z][a-z0-9_.]{2,31}")),
            "secret": Rule(str, check=length(8, 128)),
        },
    ),
    Component(
        name="Telemetry",
        tag="telemetry",
        uuid="b3a29f8e-7d6c-4b5a-9e8f-7a6b5c4d3e2f",
        requires_auth=False,
        tokens=(),
        models=(Model("f1e2d3c4-b5a6-4978-8695-a4b3c2d1e0f9", "telemetry-reader"),),
        auth_fields={
            "device": Rule(str, check=length(1, 40)),
            "sample_rate": Rule(int, required=False, check=between(1, 1000)),
        },
    ),
    Component(
        name="Bäckerei Süd",
        tag="baeckerei",
        uuid="0f1e2d3c-4b5a-4697-a8b9-cadbecfd0e1f",
        requires_auth=False,
        tokens=(),
        models=(Model("a0b1c2d3-e4f5-4a6b-9c7d-8e9f0a1b2c3d", "counter"),),
        auth_fields={
            "loaf": Rule(str, check=length(2, 30)),
            "count": Rule(int, check=between(1, 50)),
            "sliced": Rule(bool, required=False),
        },
    ),
)


# --- state: recorded claims and issued tokens ---------------------------------------------------


class Store:
    """The claiming model per (component uuid, environment), and every token
    issued, each bound to its component. Guarded by one lock: the server
    serves requests on many threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._claims: dict[tuple[str, str], dict[str, Any]] = {}
        self._tokens: dict[str, str] = {t: c.uuid for c in COMPONENTS for t in c.tokens}

    def record(self, component: Component, env: str, model: Model) -> dict[str, Any]:
        claim = {
            "model": {"uuid": model.uuid, "label": model.label},
            "claimed_at": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
        }
        with self._lock:
            self._claims[(component.uuid, env)] = claim
        return claim

    def claim(self, component: Component, env: str) -> dict[str, Any] | None:
        with self._lock:
            return self._claims.get((component.uuid, env))

    def issue(self, component: Component) -> str:
        token = "fl-issued-" + secrets.token_hex(16)
        with self._lock:
            self._tokens[token] = component.uuid
        return token

    def token_valid(self, component: Component, token: str) -> bool:
        with self._lock:
            known = list(self._tokens.items())
        # Compared in constant time against every token of the component.
        ok = False
        for t, owner in known:
            if owner == component.uuid and hmac.compare_digest(t.encode(), token.encode()):
                ok = True
        return ok


class SharedStore:
    """The same as `Store`, in a SQLite database every instance of the
    service opens: what one instance records, every other reads."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._local = threading.local()
        db = self._db()
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("CREATE TABLE IF NOT EXISTS claims (component TEXT, env TEXT, claim TEXT, PRIMARY KEY (component, env))")
        db.execute("CREATE TABLE IF NOT EXISTS tokens (token TEXT PRIMARY KEY, component TEXT)")
        db.execute("CREATE TABLE IF NOT EXISTS windows (client TEXT PRIMARY KEY, started REAL, used INTEGER)")
        for c in COMPONENTS:
            for t in c.tokens:
                db.execute("INSERT OR IGNORE INTO tokens VALUES (?, ?)", (t, c.uuid))

    def _db(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self._path, timeout=30, isolation_level=None, check_same_thread=False)
            self._local.db = db
        return db

    def record(self, component: Component, env: str, model: Model) -> dict[str, Any]:
        claim = {
            "model": {"uuid": model.uuid, "label": model.label},
            "claimed_at": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
        }
        self._db().execute(
            "INSERT OR REPLACE INTO claims VALUES (?, ?, ?)", (component.uuid, env, json.dumps(claim))
        )
        return claim

    def claim(self, component: Component, env: str) -> dict[str, Any] | None:
        row = self._db().execute(
            "SELECT claim FROM claims WHERE component = ? AND env = ?", (component.uuid, env)
        ).fetchone()
        return json.loads(row[0]) if row else None

    def issue(self, component: Component) -> str:
        token = "fl-issued-" + secrets.token_hex(16)
        self._db().execute("INSERT INTO tokens VALUES (?, ?)", (token, component.uuid))
        return token

    def token_valid(self, component: Component, token: str) -> bool:
        known = self._db().execute("SELECT token FROM tokens WHERE component = ?", (component.uuid,)).fetchall()
        ok = False
        for (t,) in known:
            if hmac.compare_digest(t.encode(), token.encode()):
                ok = True
        return ok

    def take(self, client: str, limit: int, window: float) -> float | None:
        """One request of `client`'s window; None, or the seconds until the
        window ends when it is spent."""
        db = self._db()
        now = time.time()
        db.execute("BEGIN IMMEDIATE")
        try:
            row = db.execute("SELECT started, used FROM windows WHERE client = ?", (client,)).fetchone()
            started, used = row if row and now - row[0] < window else (now, 0)
            used += 1
            db.execute("INSERT OR REPLACE INTO windows VALUES (?, ?, ?)", (client, started, used))
        finally:
            db.execute("COMMIT")
        return None if used <= limit else started + window - now


class Windows:
    """A fixed window per client, in this process's memory."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._windows: dict[str, tuple[float, int]] = {}

    def take(self, client: str, limit: int, window: float) -> float | None:
        now = time.time()
        with self._lock:
            started, used = self._windows.get(client, (now, 0))
            if now - started >= window:
                started, used = now, 0
            used += 1
            self._windows[client] = (started, used)
        return None if used <= limit else started + window - now


class CachedClaims:
    """A store whose claims this process caches as it reads them; its own
    writes update the cache, another instance's never do (a bug)."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self._lock = threading.Lock()
        self._cache: dict[tuple[str, str], Any] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def record(self, component: Component, env: str, model: Model) -> dict[str, Any]:
        claim = self._store.record(component, env, model)
        with self._lock:
            self._cache[(component.uuid, env)] = claim
        return claim

    def claim(self, component: Component, env: str) -> dict[str, Any] | None:
        key = (component.uuid, env)
        with self._lock:
            if key in self._cache:
                return self._cache[key]
        claim = self._store.claim(component, env)
        with self._lock:
            return self._cache.setdefault(key, claim)


# --- errors ----------------------------------------------------------------------------------


class ApiError(Exception):
    def __init__(self, status: int, reason: int, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.reason = reason
        self.message = message
        self.headers = headers or {}


class Invalid(Exception):
    """A request that failed validation: a 417 with these items."""

    def __init__(self, items: list[dict[str, str]]):
        super().__init__("validation failed")
        self.items = items


def new_request_id() -> str:
    return base64.urlsafe_b64encode(secrets.token_bytes(16)).decode().rstrip("=")


def error_response(status: int, reason: int, message: str, headers: dict[str, str] | None = None):
    body = {"code": status * 10 + reason, "message": message, "request_id": g.request_id, "status": False}
    response = jsonify(body)
    response.status_code = status
    for k, v in (headers or {}).items():
        response.headers[k] = v
    return response


# --- the app -----------------------------------------------------------------------------------


class StrictJSON(DefaultJSONProvider):
    """Python's json takes NaN and Infinity, which RFC 8259 does not: a body
    holding them is refused as any body that is not JSON (400)."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        def refuse(constant: str) -> Any:
            raise ValueError(f"{constant} is not JSON")

        return super().loads(s, parse_constant=refuse, **kwargs)


def create_app(
    variants: set[str],
    store_path: str | None = None,
    rate_limit: int = 0,
    slow_every: int = 0,
    slow_for: float = 0.0,
) -> Flask:
    app = Flask(__name__)
    app.json = StrictJSON(app)
    app.config["MAX_CONTENT_LENGTH"] = BODY_LIMIT
    app.json.sort_keys = True
    app.json.ensure_ascii = False
    store: Any = SharedStore(store_path) if store_path else Store()
    windows: Any = store if store_path else Windows()
    if "fault-claims-cached" in variants:
        store = CachedClaims(store)
    # The window the limiter keeps; the Retry-After it states is always a second.
    window = 1000.0 if "fault-limit-never-lifts" in variants else 1.0
    answered = {"n": 0}
    answered_lock = threading.Lock()
    api = Blueprint("api", __name__, url_prefix="/v2/api")

    @app.before_request
    def assign_request_id() -> None:
        g.request_id = new_request_id()
        if slow_every:
            with answered_lock:
                answered["n"] += 1
                slow = answered["n"] % slow_every == 0
            if slow:
                time.sleep(slow_for)
        if rate_limit and request.path.startswith("/v2/api/"):
            wait = windows.take(request.headers.get("X-Client-Id", ""), rate_limit, window)
            if wait is not None:
                raise ApiError(429, 0, "Too many requests", {"Retry-After": "1"})

    @app.after_request
    def common_headers(response):
        response.headers["X-Project-Uuid"] = PROJECT_UUID
        response.headers["X-Request-Id"] = g.get("request_id") or new_request_id()
        return response

    @app.errorhandler(ApiError)
    def on_api_error(e: ApiError):
        return error_response(e.status, e.reason, e.message, e.headers)

    @app.errorhandler(Invalid)
    def on_invalid(e: Invalid):
        response = jsonify({"code": 4170, "errors": e.items, "status": False})
        response.status_code = 417
        return response

    @app.errorhandler(HTTPException)
    def on_http_exception(e: HTTPException):
        headers = {}
        if e.code == 405 and e.valid_methods:
            headers["Allow"] = ", ".join(sorted(set(e.valid_methods) - {"HEAD", "OPTIONS"}))
        if g.get("request_id") is None:
            g.request_id = new_request_id()
        return error_response(e.code or 500, 0, e.description or e.name, headers)

    @app.errorhandler(Exception)
    def on_unexpected(e: Exception):
        if g.get("request_id") is None:
            g.request_id = new_request_id()
        app.logger.exception("unhandled error")
        return error_response(500, 0, "Internal server error")

    def find_component(ref: str) -> tuple[Component, str] | None:
        """The component `ref` names, and how it named it (name, tag, uuid)."""
        folded = ref.casefold()
        for c in COMPONENTS:
            if folded == c.name.casefold():
                return c, "name"
            if folded == c.tag.casefold():
                return c, "tag"
            if UUID_RE.fullmatch(ref.lower()) and ref.lower() == c.uuid:
                return c, "uuid"
        return None

    def secret_ok(sent: str) -> bool:
        if "fault-secret-suffix" in variants:
            return sent.startswith(CLIENT_SECRET)
        return hmac.compare_digest(sent.encode(), CLIENT_SECRET.encode())

    def environment() -> str:
        env = request.headers.get("X-Project-Env")
        if env is None:
            return DEFAULT_ENV
        if env not in ENVS:
            raise Invalid([{"field": "X-Project-Env", "in": "header", "reason": "must be one of: dev, live"}])
        return env

    def authenticate(ref: str) -> tuple[Component, str, str]:
        """Checks the client and the token; the component, how the ref named it, the env."""
        client_id = request.headers.get("X-Client-Id", "")
        client_secret = request.headers.get("X-Client-Secret", "")
        if not client_id or not client_secret:
            raise ApiError(401, 1, "X-Client-Id and X-Client-Secret are required",
                           {"WWW-Authenticate": 'ClientSecret realm="v2"'})
        id_ok = hmac.compare_digest(client_id.encode(), CLIENT_ID.encode())
        if not (secret_ok(client_secret) and id_ok):
            raise ApiError(403, 1, "Client credentials are not valid")
        env = environment()
        found = find_component(ref)
        if found is None:
            raise ApiError(404, 1, "No component has this name, tag or uuid")
        component, by = found
        token = request.headers.get("X-Auth-Token")
        if token is None:
            if component.requires_auth:
                raise ApiError(401, 2, "This component requires an X-Auth-Token")
        elif not store.token_valid(component, token):
            raise ApiError(403, 2, "X-Auth-Token is not valid for this component")
        return component, by, env

    def component_view(c: Component) -> dict[str, Any]:
        return {"name": c.name, "tag": c.tag, "uuid": c.uuid, "requires_auth": c.requires_auth}

    def validate(component: Component, body: Any) -> Model:
        if not isinstance(body, dict):
            raise Invalid([{"field": "", "in": "body", "reason": "must be a JSON object"}])
        items: list[dict[str, str]] = []
        model = None
        in_query = "model-query" in variants
        where = "query" if in_query else "body"
        model_uuid = request.args.get("modelUuid") if in_query else body.get("modelUuid")
        if model_uuid is None:
            items.append({"field": "modelUuid", "in": where, "reason": "is required"})
        elif not isinstance(model_uuid, str):
            items.append({"field": "modelUuid", "in": where, "reason": "must be a string"})
        else:
            model = next((m for m in component.models if m.uuid == model_uuid.lower()), None)
            if model is None:
                items.append({"field": "modelUuid", "in": where, "reason": "is not a model of this component"})
        for name, rule in component.auth_fields.items():
            if name not in body:
                if rule.required:
                    items.append({"field": name, "in": "body", "reason": "is required"})
                continue
            value = body[name]
            # bool is an int in Python: neither takes the other's place.
            if type(value) is not rule.kind:
                items.append({"field": name, "in": "body", "reason": f"must be a {rule.kind.__name__}"})
                continue
            problem = rule.check(value)
            if problem:
                items.append({"field": name, "in": "body", "reason": problem})
        for name in body:
            if (in_query or name != "modelUuid") and name not in component.auth_fields:
                items.append({"field": name, "in": "body", "reason": "is not a field of this component"})
        if items:
            raise Invalid(items)
        assert model is not None
        return model

    @api.get("/component/<path:ref>/auth")
    def auth_claims(ref: str):
        component, by, env = authenticate(ref)
        claim = store.claim(component, env)
        if by == "tag" and "fault-tag-forgets-claim" in variants:
            claim = None
        return jsonify({"ok": True, "component": component_view(component), "env": env, "claim": claim})

    @api.post("/component/<path:ref>/auth")
    def authorize(ref: str):
        component, _by, env = authenticate(ref)
        body = request.get_json()  # 415 without a JSON Content-Type, 400 for a body that is not JSON
        model = validate(component, body)
        claim = store.record(component, env, model)
        token = store.issue(component)
        response = jsonify(
            {"ok": True, "component": component_view(component), "env": env, "claim": claim, "token": token}
        )
        response.status_code = 201
        response.headers["Location"] = f"/v2/api/component/{component.uuid}/auth"
        return response

    app.register_blueprint(api)
    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--variant", action="append", default=[])
    parser.add_argument("--list-variants", action="store_true")
    parser.add_argument("--store", help="a SQLite database shared by every instance")
    parser.add_argument("--rate-limit", type=int, default=0, help="requests a client may send a second")
    parser.add_argument("--slow-every", type=int, default=0, help="hold every Nth answer")
    parser.add_argument("--slow-for", type=float, default=0.0, help="seconds an answer is held")
    args = parser.parse_args()
    if args.list_variants:
        for name, what in VARIANTS.items():
            print(f"{name}: {what}")
        return
    variants = set(args.variant)
    variants.update(v.strip() for v in os.environ.get("INDEP_VARIANTS", "").split(",") if v.strip())
    unknown = variants - VARIANTS.keys()
    if unknown:
        sys.exit(f"unknown variant(s): {', '.join(sorted(unknown))}; valid: {', '.join(VARIANTS)}")
    app = create_app(variants, args.store, args.rate_limit, args.slow_every, args.slow_for)
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    # make_server binds (and listens) before the address is printed.
    server = make_server("127.0.0.1", args.port, app, threaded=True)
    print(f"listening on http://127.0.0.1:{server.server_port}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
