#!/usr/bin/env python3
"""An independent Server-Sent Events server on aiohttp-sse (PyPI), for `sonde stream` (StreamCLITests).

Usage: sse_server.py PORT. Prints "ready" once listening on 127.0.0.1:PORT.

GET /events?interval=S&drop=N&skip=K&retry=MS&ping=S
  one event every S seconds (default 0.1), id = 1, 2, 3, ..., data = {"sent": <unix seconds>, "n": id},
  stamped when it is sent; a `retry:` of MS with the first event; a comment every `ping` seconds;
  the connection closed after N events (0: never). With Last-Event-ID the stream resumes after that id,
  K ids further on (a server that loses K events across a reconnect).
  pad=B adds B random hex characters to each event (they do not compress: a gzip buffer fills in a few).
Hostile answers: /endless (a line that never ends), /huge (one event of 4 MiB),
/bigretry (retry: 99999999999999), /html (200 text/html), /notfound (404).
"""
import asyncio
import json
import os
import sys
import time

from aiohttp import web
from aiohttp_sse import sse_response


async def events(request: web.Request) -> web.StreamResponse:
    interval = float(request.query.get("interval", "0.1"))
    drop = int(request.query.get("drop", "0"))
    skip = int(request.query.get("skip", "0"))
    retry = request.query.get("retry")
    pad = int(request.query.get("pad", "0"))
    last = request.headers.get("Last-Event-ID")
    first = int(last) + 1 + skip if last and last.isdigit() else 1
    async with sse_response(request, ping_interval=float(request.query.get("ping", "15"))) as sse:
        n = first
        sent_here = 0
        while sse.is_connected():
            body = {"sent": time.time(), "n": n}
            if pad:
                body["pad"] = os.urandom(pad // 2).hex()  # does not compress: a gzip buffer fills
            await sse.send(json.dumps(body), id=str(n), retry=int(retry) if retry and sent_here == 0 else None)
            n += 1
            sent_here += 1
            if drop and sent_here >= drop:
                break
            await asyncio.sleep(interval)
    return sse


async def raw(request: web.Request, content_type: str, status: int = 200) -> web.StreamResponse:
    response = web.StreamResponse(status=status, headers={"Content-Type": content_type})
    await response.prepare(request)
    return response


async def endless(request: web.Request) -> web.StreamResponse:
    response = await raw(request, "text/event-stream")
    await response.write(b"data: ")
    try:
        for _ in range(4096):  # 64 MiB at most, far past sonde's bound
            await response.write(b"a" * 16384)
    except (ConnectionResetError, RuntimeError):
        pass
    return response


async def huge(request: web.Request) -> web.StreamResponse:
    response = await raw(request, "text/event-stream")
    try:
        for _ in range(4096):
            await response.write(b"data: " + b"b" * 1024 + b"\n")
        await response.write(b"\n")
    except (ConnectionResetError, RuntimeError):
        pass
    return response


async def bigretry(request: web.Request) -> web.StreamResponse:
    response = await raw(request, "text/event-stream")
    await response.write(b"retry: 99999999999999\n\nid: 1\ndata: one\n\n")
    return response


async def html(request: web.Request) -> web.Response:
    return web.Response(text="<html>not a stream</html>", content_type="text/html")


async def notfound(request: web.Request) -> web.Response:
    return web.Response(status=404, text="no such stream")


def main() -> None:
    port = int(sys.argv[1])
    app = web.Application()
    app.router.add_get("/events", events)
    app.router.add_get("/endless", endless)
    app.router.add_get("/huge", huge)
    app.router.add_get("/bigretry", bigretry)
    app.router.add_get("/html", html)
    app.router.add_get("/notfound", notfound)

    async def started(_app):
        print("ready", flush=True)

    app.on_startup.append(started)
    web.run_app(app, host="127.0.0.1", port=port, print=None)


if __name__ == "__main__":
    main()
