"""A strictly clean client's session, as an application would call the
interface (the same session as the test
`a_clean_clients_session_shows_faults_passively`): for each component of
the shipped profile, Auth Claims by its tag, its name (percent-encoded)
and its uuid, with its token where it requires auth, with no
X-Project-Env, `dev` and `live`; Authorize of each model with the body
that claims it (the second model in `live`), as `application/json`, with
`charset=utf-8` and as `Application/JSON` taking gzip; a user's wrong
answers (right fields and types, values the server refuses); a component
that does not exist. Standard library only.

Usage: python3 clean_client.py BASE_URL [PREFIX]
  PREFIX: the path before `/component/...` (default `/v2/api`; Prism's
  proxy serves the description's paths without it: pass "").
Prints one line per request: status, Prism's `sl-violations` header where
the answer has one, and `prism-error` where the answer is one of Prism's
error documents.
"""
import http.client
import json
import sys
import urllib.parse

CLIENT_ID = "conformance-client"
SECRET = "demo-secret-7Qx9"
COMPONENTS = [
    {"name": "Users", "tag": "users", "uuid": "0b6c1c1e-1d3a-4c55-9a8e-6f1f2f0f5c11",
     "token": "users-token-ada-0001",
     "models": [("5d2e8a34-8a47-4f0e-b3a6-2a9d2f9c7e01", {"email": "ada@example.com", "password": "correct-horse"})]},
    {"name": "Catalog", "tag": "catalog", "uuid": "3e1f6b2a-7c4d-4e8f-a1b2-c3d4e5f60718", "token": None,
     "models": [("8a9b0c1d-2e3f-4a5b-8c6d-7e8f90a1b2c3", {"account": "acme", "pin": 1234}),
                ("4b5c6d7e-8f90-4a1b-9c2d-3e4f5a6b7c8d", {"account": "globex", "pin": 4321})]},
    {"name": "Café Menü", "tag": "cafe-menu", "uuid": "9d8c7b6a-5f4e-4d3c-b2a1-0f9e8d7c6b5a", "token": None,
     "models": [("c0ffee00-1234-4abc-8def-0123456789ab", {"table": 7, "vip": True})]},
]


def main():
    base = urllib.parse.urlsplit(sys.argv[1])
    prefix = sys.argv[2] if len(sys.argv) > 2 else "/v2/api"

    def send(method, ref, headers, body=None, query=""):
        path = f"{prefix}/component/{urllib.parse.quote(ref, safe='')}/auth{query}"
        conn = http.client.HTTPConnection(base.hostname, base.port, timeout=30)
        conn.request(method, path, body=body.encode() if body is not None else None, headers=headers)
        answer = conn.getresponse()
        data = answer.read()
        # Prism's own errors (with --errors) are problem documents of its
        # error types; without, it lists violations in `sl-violations`.
        mark = "prism-error" if b"stoplight.io/prism/errors" in data else ""
        print(answer.status, answer.getheader("sl-violations") or "", mark, flush=True)
        conn.close()

    for c in COMPONENTS:
        creds = {"x-client-id": CLIENT_ID, "x-client-secret": SECRET}
        if c["token"]:
            creds["x-auth-token"] = c["token"]
        for ref in (c["tag"], c["name"], c["uuid"]):
            send("GET", ref, creds)
        for env in ("dev", "live"):
            send("GET", c["tag"], {**creds, "x-project-env": env})
        for i, (model, body) in enumerate(c["models"]):
            media = "application/json" if i == 0 else "application/json; charset=utf-8"
            headers = {**creds, "content-type": media}
            if i:
                headers["x-project-env"] = "live"
            send("POST", c["tag"], headers, json.dumps(body), f"?modelUuid={model}")
        model, body = c["models"][0]
        send("POST", c["tag"], {**creds, "content-type": "Application/JSON", "accept-encoding": "gzip"},
             json.dumps(body), f"?modelUuid={model}")
        for text, number in (("-x", 77), ("", 100000)):
            wrong = {k: (("X" if not text else v + text) if isinstance(v, str) else
                         number if isinstance(v, int) and not isinstance(v, bool) else v)
                     for k, v in body.items()}
            send("POST", c["tag"], {**creds, "content-type": "application/json"}, json.dumps(wrong),
                 f"?modelUuid={model}")
    send("GET", "no-such-component", {"x-client-id": CLIENT_ID, "x-client-secret": SECRET})


if __name__ == "__main__":
    main()
