#!/usr/bin/env python3
"""An independent WebSocket echo server for sonde's tests: Python `websockets` (PyPI) on
127.0.0.1:PORT. Echoes every message; pings are answered by the library (RFC 6455).
Usage: ws_echo_server.py PORT. Prints "ready PORT" once listening; runs until killed."""
import asyncio
import sys

from websockets.asyncio.server import serve


async def echo(connection):
    async for message in connection:
        await connection.send(message)


async def main(port: int) -> None:
    async with serve(echo, "127.0.0.1", port, ping_interval=None, max_size=1 << 24,
                     subprotocols=None):
        print(f"ready {port}", flush=True)
        await asyncio.Future()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))
