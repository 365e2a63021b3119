"""A client of the interface written from the description alone, in Python's
standard library: what a client team outside Rust writes. It claims a model
on the Catalog component, reads the claims back, and reads the Users
component's claims with its X-Auth-Token.

    python3 python_client.py BASE_URL [MODE]

MODE breaks one rule of the description on purpose, so the proxy and the
mock are shown to name it: none (default), no-secret, prod-env,
pin-as-string, two-json-texts, no-model-uuid. Exit 0 when every request got
an answer (whatever its status: judging the answers is not this client's
job), 2 when the server could not be reached.
"""

import json
import sys
import urllib.error
import urllib.request

CATALOG_MODEL = "8a9b0c1d-2e3f-4a5b-8c6d-7e8f90a1b2c3"


def send(base, method, ref, headers, body, query=""):
    req = urllib.request.Request(
        f"{base}/v2/api/component/{ref}/auth{query}",
        data=body,
        method=method,
        headers=headers,
    )
    try:
        with urllib.request.urlopen(req, timeout=5) as answer:
            answer.read()
    except urllib.error.HTTPError as answer:
        answer.read()


def main():
    base = sys.argv[1].rstrip("/")
    mode = sys.argv[2] if len(sys.argv) > 2 else "none"
    headers = {
        "X-Client-Id": "conformance-client",
        "X-Client-Secret": "demo-secret-7Qx9",
        "X-Project-Env": "dev",
        "Content-Type": "application/json",
    }
    fields = {"account": "acme", "pin": 1234}
    query = f"?modelUuid={CATALOG_MODEL}"
    if mode == "no-secret":
        del headers["X-Client-Secret"]
    elif mode == "prod-env":
        headers["X-Project-Env"] = "prod"
    elif mode == "pin-as-string":
        fields["pin"] = "1234"
    elif mode == "no-model-uuid":
        query = ""
    elif mode != "none" and mode != "two-json-texts":
        print(f"unknown mode {mode}", file=sys.stderr)
        return 2
    body = json.dumps(fields).encode()
    if mode == "two-json-texts":
        body = body + b"\n" + body
    try:
        send(base, "POST", "catalog", headers, body, query)
        send(base, "GET", "catalog", headers, json.dumps({"account": "acme", "pin": 1234}).encode())
        users = dict(headers, **{"X-Auth-Token": "users-token-ada-0001", "X-Client-Secret": "demo-secret-7Qx9", "X-Project-Env": "dev"})
        send(base, "GET", "users", users, json.dumps({"email": "ada@example.com", "password": "correct-horse"}).encode())
    except urllib.error.URLError as e:
        print(f"cannot reach {base}: {e.reason}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
