"""A tiny ASGI app for the HTTP/3 tests: hypercorn serves it over TCP+TLS (h2, http/1.1) and QUIC (h3).

GET /        -> 200, "hello over <http_version>\n"
GET /1k.bin  -> 200, 1024 bytes of "a"
anything else -> 404
"""


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    if scope["type"] != "http":
        return
    path = scope.get("path", "/")
    if path == "/":
        status, body = 200, f"hello over {scope.get('http_version', '?')}\n".encode()
    elif path == "/1k.bin":
        status, body = 200, b"a" * 1024
    else:
        status, body = 404, b"not found\n"
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
