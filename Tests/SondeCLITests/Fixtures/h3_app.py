"""A tiny ASGI app for the HTTP/3 tests: hypercorn serves it over TCP+TLS (h2, http/1.1) and QUIC (h3).

GET /        -> 200, "hello over <http_version>\n"
GET /1k.bin  -> 200, 1024 bytes of "a"
GET /blob    -> 2 MiB of deterministic bytes with a strong ETag and Last-Modified, Accept-Ranges;
                a single "Range: bytes=a-b" (or "a-") answers 206 with Content-Range, unless an
                If-Range that is not the current ETag says the representation changed (then 200).
anything else -> 404
"""
import hashlib

BLOB = b"".join(hashlib.sha256(i.to_bytes(4, "big")).digest() for i in range(2 * 1024 * 1024 // 32))
ETAG = '"' + hashlib.sha256(BLOB).hexdigest()[:16] + '"'
LAST_MODIFIED = "Mon, 23 Nov 2026 00:00:00 GMT"


def byte_range(header: str, length: int):
    """(first, last) of a single bytes range, or None when it is not one this app serves."""
    if not header.startswith("bytes=") or "," in header:
        return None
    first, _, last = header[len("bytes="):].partition("-")
    if not first.isdigit():
        return None
    first = int(first)
    last = int(last) if last.isdigit() else length - 1
    if first >= length or last < first:
        return None
    return first, min(last, length - 1)


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
    headers = [(b"content-type", b"text/plain")]
    if path == "/":
        status, body = 200, f"hello over {scope.get('http_version', '?')}\n".encode()
    elif path == "/1k.bin":
        status, body = 200, b"a" * 1024
    elif path == "/blob":
        request = {k.decode().lower(): v.decode() for k, v in scope.get("headers", [])}
        headers = [(b"content-type", b"application/octet-stream"), (b"etag", ETAG.encode()),
                   (b"last-modified", LAST_MODIFIED.encode()), (b"accept-ranges", b"bytes")]
        wanted = byte_range(request.get("range", ""), len(BLOB))
        if_range = request.get("if-range")
        if wanted and (if_range is None or if_range == ETAG):
            first, last = wanted
            status, body = 206, BLOB[first:last + 1]
            headers.append((b"content-range", f"bytes {first}-{last}/{len(BLOB)}".encode()))
        else:
            status, body = 200, BLOB
        if scope.get("method") == "HEAD":
            headers.append((b"content-length", str(len(body)).encode()))
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
            return
    else:
        status, body = 404, b"not found\n"
    await send({"type": "http.response.start", "status": status,
                "headers": headers + [(b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
