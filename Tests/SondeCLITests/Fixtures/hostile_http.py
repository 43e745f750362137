#!/usr/bin/env python3
"""A hostile HTTP peer on 127.0.0.1 for the failure-cause tests: it reads a request and answers
in one broken way. Usage: hostile_http.py MODE PORT [SECONDS]. Prints "ready" once listening; stops
by itself after SECONDS (default 60).
Modes: http09 (a reply with no status line), random (64 random bytes), status000, manyheaders
(3000 header lines, ~300 KiB), longheader (one 110 KB header line), badchunk (a chunk size that is
not hexadecimal), stalltls (accepts and never answers: a TLS client waits for its ServerHello)."""
import os
import socket
import sys
import threading
import time

mode, port = sys.argv[1], int(sys.argv[2])
deadline = time.monotonic() + (float(sys.argv[3]) if len(sys.argv) > 3 else 60)

ANSWERS = {
    "http09": b"hello world\n",
    "random": os.urandom(64),
    "status000": b"HTTP/1.1 000 Nothing\r\nContent-Length: 2\r\n\r\nok",
    "manyheaders": b"HTTP/1.1 200 OK\r\n" + b"".join(b"X-H%d: %s\r\n" % (i, b"a" * 100) for i in range(3000))
                   + b"Content-Length: 2\r\n\r\nok",
    "longheader": b"HTTP/1.1 200 OK\r\nX-Long: " + b"a" * 110_000 + b"\r\nContent-Length: 2\r\n\r\nok",
    "badchunk": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
}


def handle(connection):
    try:
        connection.settimeout(10)
        connection.recv(65536)
        if mode == "stalltls":
            time.sleep(max(0.0, min(30.0, deadline - time.monotonic())))
        else:
            connection.sendall(ANSWERS[mode])
            time.sleep(0.5)
    except OSError:
        pass
    finally:
        connection.close()


server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", port))
server.listen(16)
server.settimeout(0.5)
print("ready", flush=True)
while time.monotonic() < deadline:
    try:
        client, _ = server.accept()
    except socket.timeout:
        continue
    threading.Thread(target=handle, args=(client,), daemon=True).start()
