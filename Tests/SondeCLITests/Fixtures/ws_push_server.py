#!/usr/bin/env python3
"""An independent WebSocket server that behaves like real ones, for sonde's tests: Python
`websockets` (PyPI) on 127.0.0.1:PORT. After the handshake it pushes a text greeting and a
16-byte binary message whose first 8 bytes read as sequence 1 (sonde's old echo header), then
echoes every message. It accepts the first subprotocol offered and answers the upgrade with
URL-bearing and cookie headers that carry secrets (PUSH-SECRET-1 … 5).
Usage: ws_push_server.py PORT. Prints "ready PORT" once listening; runs until killed."""
import asyncio
import sys

from websockets.asyncio.server import serve

PUSHES = ["welcome", b"\x00\x00\x00\x00\x00\x00\x00\x01presence"]
HEADERS = {
    "Location": "/next?access_token=PUSH-SECRET-1",
    "Content-Location": "/here?token=PUSH-SECRET-2",
    "Refresh": "0; url=/again?api_key=PUSH-SECRET-3",
    "Link": "</page2?access_token=PUSH-SECRET-4>; rel=next",
    "Set-Cookie": "session=PUSH-SECRET-5; HttpOnly",
}


async def handler(connection):
    for message in PUSHES:
        await connection.send(message)
    async for message in connection:
        await connection.send(message)


def add_headers(connection, request, response):
    for name, value in HEADERS.items():
        response.headers[name] = value
    return response


async def main(port: int) -> None:
    async with serve(handler, "127.0.0.1", port, ping_interval=None, max_size=1 << 24,
                     select_subprotocol=lambda connection, offered: offered[0] if offered else None,
                     process_response=add_headers):
        print(f"ready {port}", flush=True)
        await asyncio.Future()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))
