#!/usr/bin/env python3
"""A minimal WebSocket echo server (RFC 6455) that records each opening handshake's traceparent.

usage: ws_traced.py PORT OUT_FILE MAX_SECONDS

Listens on 127.0.0.1:PORT; for each handshake appends one line to OUT_FILE: the request's
`traceparent` header ("-" when absent). Answers pings with pongs, echoes data frames, answers a
close with a close. Prints "ready" once it listens; exits after MAX_SECONDS at the latest.
"""
import base64
import hashlib
import socket
import struct
import sys
import threading
import time

port, out_file, max_seconds = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
lock = threading.Lock()


def read_exact(conn, count):
    data = b""
    while len(data) < count:
        chunk = conn.recv(count - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return data


def send_frame(conn, opcode, payload):
    header = bytes([0x80 | opcode])
    if len(payload) < 126:
        header += bytes([len(payload)])
    elif len(payload) < 65536:
        header += bytes([126]) + struct.pack("!H", len(payload))
    else:
        header += bytes([127]) + struct.pack("!Q", len(payload))
    conn.sendall(header + payload)


def serve(conn):
    conn.settimeout(max_seconds)
    try:
        request = b""
        while b"\r\n\r\n" not in request and len(request) < 65536:
            chunk = conn.recv(4096)
            if not chunk:
                return
            request += chunk
        headers = {}
        for line in request.split(b"\r\n")[1:]:
            if b":" in line:
                name, value = line.split(b":", 1)
                headers[name.strip().lower().decode()] = value.strip().decode()
        with lock, open(out_file, "a") as out:
            out.write(headers.get("traceparent", "-") + "\n")
        accept = base64.b64encode(hashlib.sha1((headers.get("sec-websocket-key", "") + GUID).encode()).digest()).decode()
        conn.sendall(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Accept: {accept}\r\n\r\n").encode())
        while True:
            first, second = read_exact(conn, 2)
            opcode, length = first & 0x0F, second & 0x7F
            if length == 126:
                length = struct.unpack("!H", read_exact(conn, 2))[0]
            elif length == 127:
                length = struct.unpack("!Q", read_exact(conn, 8))[0]
            if length > 1 << 24:
                return
            mask = read_exact(conn, 4) if second & 0x80 else b"\0\0\0\0"
            payload = bytes(b ^ mask[i % 4] for i, b in enumerate(read_exact(conn, length)))
            if opcode == 0x9:
                send_frame(conn, 0xA, payload)
            elif opcode == 0x8:
                send_frame(conn, 0x8, payload[:2])
                return
            elif opcode in (0x1, 0x2, 0x0):
                send_frame(conn, opcode if opcode else 0x2, payload)
    except (OSError, ConnectionError, ValueError):
        pass
    finally:
        conn.close()


listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", port))
listener.listen(64)
listener.settimeout(0.5)
print("ready", flush=True)
deadline = time.monotonic() + max_seconds
while time.monotonic() < deadline:
    try:
        conn, _ = listener.accept()
    except socket.timeout:
        continue
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
