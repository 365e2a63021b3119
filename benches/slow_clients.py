"""Slow clients for benches/server.sh's memory measure (stdlib only).

Usage: slow_clients.py PORT CLIENTS BODY_BYTES CHUNK_BYTES PAUSE_S

CLIENTS connections at once, each a GET of `catalog` with valid client
headers and a JSON body of BODY_BYTES declared in Content-Length, sent
CHUNK_BYTES at a time with PAUSE_S between chunks; each then reads the
answer's status line. Prints one line: `status=count ...`, with `reset` for a
connection closed before an answer (e.g. after an early 503). Only
127.0.0.1 is loaded; every connection is bounded in time.
"""

import asyncio
import collections
import sys

HEAD = (
    "GET /v2/api/component/catalog/auth HTTP/1.1\r\nHost: x\r\n"
    "X-Client-Id: conformance-client\r\nX-Client-Secret: demo-secret-7Qx9\r\n"
    "Content-Type: application/json\r\nContent-Length: {n}\r\nConnection: close\r\n\r\n"
)


async def one(port, size, chunk, pause):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        body = b'{"account":"acme","pin":1234}'.ljust(size, b" ")
        writer.write(HEAD.format(n=size).encode())
        for offset in range(0, size, chunk):
            await writer.drain()
            await asyncio.sleep(pause)
            writer.write(body[offset : offset + chunk])
        await writer.drain()
        line = await reader.readline()
        parts = line.split()
        return parts[1].decode() if len(parts) > 1 else "reset"
    except (ConnectionError, OSError):
        # An early answer (503) closes the connection under the writer;
        # read what came before the close.
        try:
            line = await asyncio.wait_for(reader.readline(), 1)
            parts = line.split()
            return parts[1].decode() if len(parts) > 1 else "reset"
        except (ConnectionError, OSError, asyncio.TimeoutError):
            return "reset"
    finally:
        writer.close()


async def main():
    port, clients, size, chunk = map(int, sys.argv[1:5])
    pause = float(sys.argv[5])
    tasks = [asyncio.wait_for(one(port, size, chunk, pause), 60) for _ in range(clients)]
    results = await asyncio.gather(*tasks, return_exceptions=True)
    counts = collections.Counter(r if isinstance(r, str) else type(r).__name__ for r in results)
    print(" ".join(f"{k}={v}" for k, v in sorted(counts.items())))


asyncio.run(main())
