#!/usr/bin/env python3
"""Peers for the regular-expression tests of serve's /probe beside blackbox_exporter (standard library only).

Usage: regexp_peer.py HTTP_PORT TCP_PORT. Prints "ready" once both listen on 127.0.0.1; runs until killed.

HTTP (http.server):
  /page            200, an HTML body with "Welcome to sonde", X-Version: 1.2.3, Set-Cookie: session=abc123
  /redirect-away   302 to http://127.0.0.2:9/away (a place no allow list names)
  /redirect-here   302 to /page
  /big?bytes=N     200, N bytes of "a" (N at most 64 MiB)

TCP (one line from the client decides):
  backtrack N      answers "a" * N + "!" and a newline, then holds the connection open (60 s at most)
  stream           sends numbered lines as fast as the client reads them (60 s at most)
"""
import socket
import socketserver
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

PAGE = b"<!doctype html><html><head><title>Welcome to sonde</title></head><body><p>Welcome to sonde 1.2.3</p></body></html>\n"


class HTTPHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body=b"", headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        url = urlparse(self.path)
        if url.path == "/page":
            self.answer(200, PAGE, [("Content-Type", "text/html"), ("X-Version", "1.2.3"), ("Set-Cookie", "session=abc123; Path=/")])
        elif url.path == "/redirect-away":
            self.answer(302, b"moved\n", [("Location", "http://127.0.0.2:9/away")])
        elif url.path == "/redirect-here":
            self.answer(302, b"moved\n", [("Location", "/page")])
        elif url.path == "/big":
            count = min(int(parse_qs(url.query).get("bytes", ["0"])[0]), 64 << 20)
            self.answer(200, b"a" * count, [("Content-Type", "text/plain")])
        else:
            self.answer(404, b"not found\n")


class LineHandler(socketserver.BaseRequestHandler):
    def handle(self):
        connection = self.request
        connection.settimeout(60)
        first = b""
        while not first.endswith(b"\n") and len(first) < 256:
            chunk = connection.recv(256)
            if not chunk:
                return
            first += chunk
        words = first.decode(errors="replace").split()
        ends = time.time() + 60
        try:
            if words[:1] == ["backtrack"]:
                connection.sendall(b"a" * min(int(words[1]), 1 << 20) + b"!\n")
                while time.time() < ends and connection.recv(4096):
                    pass
            elif words[:1] == ["stream"]:
                number = 0
                while time.time() < ends:
                    block = "".join(f"line {number + i} of a stream that never says what is expected\n" for i in range(500))
                    number += 500
                    connection.sendall(block.encode())
        except OSError:
            pass


class LineServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 1024


def main():
    http_port, tcp_port = int(sys.argv[1]), int(sys.argv[2])
    http = ThreadingHTTPServer(("127.0.0.1", http_port), HTTPHandler)
    http.daemon_threads = True
    lines = LineServer(("127.0.0.1", tcp_port), LineHandler)
    for server in (http, lines):
        threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"ready {http_port} {tcp_port}", flush=True)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
