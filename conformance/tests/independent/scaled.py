#!/usr/bin/env python3
"""The Flask service deployed as production services are: several instances
of `flask_server.py` behind a round-robin TCP balancer (as HAProxy in `mode
tcp`, or nginx's `stream` module, hand connections out), their state in one
SQLite database every instance opens.

Usage: python3 scaled.py [--port 0] [--instances 2] [--variant NAME ...]
                         [--rate-limit N] [--slow-every N --slow-for S]

The first line on stdout is `listening on http://127.0.0.1:PORT`: the
balancer's address, printed once every instance listens. Each new
connection goes to the next instance in turn. The instances run with the
same Python, each `--port 0`; `--rate-limit`, `--slow-every`, `--slow-for`
and the variants of `flask_server.py` are passed on to every instance.
They end with the balancer (SIGTERM, SIGINT, or the balancer killed: each
instance is asked to end when its parent does).

Variants of the deployment (bugs):
- `fault-claims-per-instance`: no shared database; each instance keeps
  claims and tokens in its own memory.
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEPLOYMENT_VARIANTS = {"fault-claims-per-instance"}


def die_with_parent() -> None:
    """Ends this child with SIGTERM when the balancer ends, however it ends."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def start_instances(args: argparse.Namespace, store: str | None) -> tuple[list[subprocess.Popen], list[tuple[str, int]]]:
    children = []
    addresses = []
    for _ in range(args.instances):
        cmd = [sys.executable, str(HERE / "flask_server.py"), "--port", "0"]
        if store:
            cmd += ["--store", store]
        for v in args.variant:
            if v not in DEPLOYMENT_VARIANTS:
                cmd += ["--variant", v]
        cmd += ["--rate-limit", str(args.rate_limit)]
        cmd += ["--slow-every", str(args.slow_every), "--slow-for", str(args.slow_for)]
        child = subprocess.Popen(
            cmd,
            stdout=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            preexec_fn=die_with_parent,
            env={k: v for k, v in os.environ.items() if k != "INDEP_VARIANTS"},
        )
        children.append(child)
        line = child.stdout.readline().strip() if child.stdout else ""
        if not line.startswith("listening on http://"):
            for c in children:
                c.kill()
            sys.exit(f"an instance did not start: {line!r}")
        host, port = line.removeprefix("listening on http://").rsplit(":", 1)
        addresses.append((host, int(port)))
    return children, addresses


async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except (ConnectionError, OSError):
        pass


async def serve(args: argparse.Namespace, addresses: list[tuple[str, int]]) -> None:
    turn = {"next": 0}

    async def handle(client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        host, port = addresses[turn["next"] % len(addresses)]
        turn["next"] += 1
        try:
            server_r, server_w = await asyncio.open_connection(host, port)
        except OSError:
            client_w.close()
            return
        await asyncio.gather(pipe(client_r, server_w), pipe(server_r, client_w))
        for w in (client_w, server_w):
            try:
                w.close()
                await w.wait_closed()
            except (ConnectionError, OSError):
                pass

    server = await asyncio.start_server(handle, "127.0.0.1", args.port, backlog=1024)
    port = server.sockets[0].getsockname()[1]
    print(f"listening on http://127.0.0.1:{port}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    async with server:
        await stop.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--instances", type=int, default=2)
    parser.add_argument("--variant", action="append", default=[])
    parser.add_argument("--rate-limit", type=int, default=0)
    parser.add_argument("--slow-every", type=int, default=0)
    parser.add_argument("--slow-for", type=float, default=0.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="scaled-flask-") as state:
        store = None if "fault-claims-per-instance" in args.variant else str(Path(state) / "state.db")
        children, addresses = start_instances(args, store)
        try:
            asyncio.run(serve(args, addresses))
        finally:
            for c in children:
                c.terminate()
            for c in children:
                try:
                    c.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    c.kill()


if __name__ == "__main__":
    main()
