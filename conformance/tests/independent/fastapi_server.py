"""Component Authentication Claims service (v2) on FastAPI, written from the
interface description alone, the way a FastAPI developer writes one: its own
routing, `Header(...)` and `Query(...)` parameters, Pydantic models for the
auth fields, and exception handlers for the error shapes.

Usage: python3 fastapi_server.py [--port 0]   (needs `fastapi` and `uvicorn`)

Its choices where the description is silent, as FastAPI makes them:
- every validation error (a missing header, an X-Project-Env outside
  `dev`/`live`, a missing `modelUuid`, a body field its model refuses) is a
  417 `{code, errors, status}` whose items are FastAPI's own, `input` echoing
  what was sent (however deeply nested); a body that is not JSON is a 400;
- 401 for wrong credentials or token, 404 for an unknown ref or model, all
  `{code, message, request_id, status}`; X-Project-Uuid on errors only;
- `modelUuid` in the query string; 200 for both operations, the success
  wrapped in `{status, data}`; no X-Project-Env means `live`;
- no body size limit of its own; names and tags matched exactly, a uuid in
  any letter case.
"""

from __future__ import annotations

import argparse
import socket

import math
import secrets
import uuid
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from fastapi import Body, FastAPI, Header, Query, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

PROJECT_UUID = "7f3c2a10-5b6d-4e8f-9a01-23456789abcd"
CLIENT_ID = "fa-client"
CLIENT_SECRET = "fa-secret-Wq3n"


# --- auth-section settings of each component: the body fields it expects ---------------------


class UsersAuth(BaseModel):
    model_config = ConfigDict(extra="forbid")
    email: StrictStr = Field(min_length=3, pattern=r"^[^@\s]+@[^@\s]+$")
    password: StrictStr = Field(min_length=1)


class CatalogAuth(BaseModel):
    model_config = ConfigDict(extra="forbid")
    account: StrictStr = Field(min_length=2)
    pin: StrictInt = Field(ge=0, le=999999)


class CafeMenuAuth(BaseModel):
    model_config = ConfigDict(extra="forbid")
    table: StrictInt = Field(ge=1)
    vip: StrictBool = False


@dataclass(frozen=True)
class Component:
    name: str
    tag: str
    uuid: str
    requires_auth: bool
    auth_token: str | None
    model_uuid: str
    auth_settings: type[BaseModel]


COMPONENTS = [
    Component(
        "Users", "users", "0b6c1c1e-1d3a-4c55-9a8e-6f1f2f0f5c11", True, "users-token-fa-5150",
        "5d2e8a34-8a47-4f0e-b3a6-2a9d2f9c7e01", UsersAuth,
    ),
    Component(
        "Catalog", "catalog", "3e1f6b2a-7c4d-4e8f-a1b2-c3d4e5f60718", False, None,
        "8a9b0c1d-2e3f-4a5b-8c6d-7e8f90a1b2c3", CatalogAuth,
    ),
    Component(
        "Café Menü", "cafe-menu", "9d8c7b6a-5f4e-4d3c-b2a1-0f9e8d7c6b5a", False, None,
        "c0ffee00-1234-4abc-8def-0123456789ab", CafeMenuAuth,
    ),
]


def find_component(ref: str) -> Component | None:
    for c in COMPONENTS:
        if ref in (c.name, c.tag) or ref.lower() == c.uuid:
            return c
    return None


# --- errors ------------------------------------------------------------------------------------


class ApiError(Exception):
    def __init__(self, status: int, message: str):
        self.status = status
        self.message = message


def error_headers(extra: dict[str, str] | None = None) -> dict[str, str]:
    headers = {"X-Project-Uuid": PROJECT_UUID}
    if extra:
        headers.update(extra)
    return headers


def plain_error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    body = {"code": status, "message": message, "request_id": str(uuid.uuid4()), "status": False}
    return JSONResponse(status_code=status, content=body, headers=error_headers(headers))


app = FastAPI(title="Component Authentication Claims", version="2")


def json_safe(value: Any) -> Any:
    """Python's json module reads NaN and 1e400 as floats that JSON cannot write back; echo them as text."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


def refuse_non_json_numbers(value: Any) -> None:
    """Python's json (what Starlette parses bodies with) takes NaN and
    Infinity, which RFC 8259 does not: such a body is malformed JSON."""
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        raise ApiError(400, "Malformed JSON body")
    if isinstance(value, dict):
        for v in value.values():
            refuse_non_json_numbers(v)
    elif isinstance(value, list):
        for v in value:
            refuse_non_json_numbers(v)


@app.exception_handler(RequestValidationError)
async def on_validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
    errors = exc.errors()
    if any(e.get("type") == "json_invalid" for e in errors):
        return plain_error(400, "Malformed JSON body")
    body = {"code": 417, "errors": json_safe(jsonable_encoder(errors)), "status": False}
    return JSONResponse(status_code=417, content=body, headers=error_headers())


@app.exception_handler(StarletteHTTPException)
async def on_http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    return plain_error(exc.status_code, str(exc.detail), dict(exc.headers or {}))


@app.exception_handler(ApiError)
async def on_api_error(request: Request, exc: ApiError) -> JSONResponse:
    return plain_error(exc.status, exc.message)


# --- shared request handling -------------------------------------------------------------------

ClientId = Annotated[str, Header(alias="X-Client-Id")]
ClientSecret = Annotated[str, Header(alias="X-Client-Secret")]
AuthToken = Annotated[str | None, Header(alias="X-Auth-Token")]
ProjectEnv = Annotated[Literal["dev", "live"] | None, Header(alias="X-Project-Env")]


def authenticate(ref: str, client_id: str, client_secret: str, auth_token: str | None) -> Component:
    if not (secrets.compare_digest(client_id, CLIENT_ID) and secrets.compare_digest(client_secret, CLIENT_SECRET)):
        raise ApiError(401, "Invalid client credentials")
    component = find_component(ref)
    if component is None:
        raise ApiError(404, "Component not found")
    if component.requires_auth:
        if auth_token is None:
            raise ApiError(401, "X-Auth-Token is required for this component")
        if not secrets.compare_digest(auth_token, component.auth_token or ""):
            raise ApiError(401, "Invalid auth token")
    return component


def validate_auth_fields(component: Component, payload: Any) -> BaseModel:
    try:
        return component.auth_settings.model_validate(payload)
    except ValidationError as e:
        raise RequestValidationError(
            [{**err, "loc": ("body", *err["loc"])} for err in e.errors(include_url=False)]
        )


# --- endpoints ---------------------------------------------------------------------------------


@app.get("/v2/api/component/{ref}/auth")
async def auth_claims(
    ref: str,
    x_client_id: ClientId,
    x_client_secret: ClientSecret,
    x_auth_token: AuthToken = None,
    x_project_env: ProjectEnv = None,
    payload: Annotated[dict[str, Any] | None, Body()] = None,
):
    component = authenticate(ref, x_client_id, x_client_secret, x_auth_token)
    if payload is not None:
        refuse_non_json_numbers(payload)
        validate_auth_fields(component, payload)
    return {
        "status": True,
        "data": {
            "component": {"name": component.name, "tag": component.tag, "uuid": component.uuid},
            "model": {"modelUuid": component.model_uuid},
            "env": x_project_env or "live",
        },
    }


@app.post("/v2/api/component/{ref}/auth")
async def authorize(
    ref: str,
    model_uuid: Annotated[str, Query(alias="modelUuid")],
    x_client_id: ClientId,
    x_client_secret: ClientSecret,
    payload: Annotated[dict[str, Any], Body()],
    x_auth_token: AuthToken = None,
    x_project_env: ProjectEnv = None,
):
    component = authenticate(ref, x_client_id, x_client_secret, x_auth_token)
    refuse_non_json_numbers(payload)
    if model_uuid.lower() != component.model_uuid:
        raise ApiError(404, "Model not found for this component")
    validate_auth_fields(component, payload)
    return {
        "status": True,
        "data": {
            "component": component.uuid,
            "modelUuid": component.model_uuid,
            "authorized": True,
            "env": x_project_env or "live",
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    # Listening before the address is printed: a client that connects at
    # once waits in the backlog until uvicorn accepts, not refused.
    sock.listen(128)
    host, port = sock.getsockname()
    print(f"listening on http://{host}:{port}", flush=True)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", backlog=128))
    server.run(sockets=[sock])


if __name__ == "__main__":
    main()
