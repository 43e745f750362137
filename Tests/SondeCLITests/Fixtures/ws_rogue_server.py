#!/usr/bin/env python3
"""A raw-socket WebSocket server that breaks RFC 6455 on purpose, for sonde's tests. It
accepts the upgrade on 127.0.0.1:PORT (any path), then sends one frame chosen by the request
path, and reports what the client answered: one line "MODE close CODE" when a close frame
arrives (its code, or "none" without one; "MODE eof" when the client closed TCP first).
It never closes first (up to 5 s), so whatever ends the connection is the client's doing.
Usage: ws_rogue_server.py PORT. Prints "ready PORT" once listening; runs until killed."""
import base64
import hashlib
import socket
import struct
import sys
import threading

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
FRAMES = {
    "masked": bytes([0x81, 0x82]) + b"\x01\x02\x03\x04" + bytes([ord("h") ^ 1, ord("i") ^ 2]),
    "rsv": bytes([0xC2, 0x02]) + b"hi",                            # binary, RSV1 set
    "opcode": bytes([0x83, 0x02]) + b"hi",                         # reserved opcode 0x3
    "utf8": bytes([0x81, 0x03]) + b"a\xff\xfe",                    # text, invalid UTF-8
    "huge": bytes([0x82, 0x7F]) + struct.pack(">Q", 1 << 30),      # announces 1 GiB
    "giant": bytes([0x82, 0x7F]) + struct.pack(">Q", 1 << 63),     # announces 2^63 bytes
    "fragmentedping": bytes([0x09, 0x02]) + b"hi",                 # ping without FIN
    "longping": bytes([0x89, 0x7E]) + struct.pack(">H", 126) + b"p" * 126,
}


def read_exactly(conn, count):
    data = b""
    while len(data) < count:
        chunk = conn.recv(count - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def serve(conn):
    conn.settimeout(5)
    mode = "?"
    try:
        request = b""
        while b"\r\n\r\n" not in request:
            chunk = conn.recv(4096)
            if not chunk:
                return
            request += chunk
        lines = request.split(b"\r\n")
        mode = lines[0].split(b" ")[1].decode().strip("/").split("?")[0]
        key = next(l.split(b":", 1)[1].strip() for l in lines if l.lower().startswith(b"sec-websocket-key:"))
        accept = base64.b64encode(hashlib.sha1(key + GUID).digest())
        conn.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n" + FRAMES[mode])
        while True:  # skip the client's pings and pongs until its close frame
            first, second = read_exactly(conn, 2)
            length = second & 0x7F
            if length == 126:
                length = struct.unpack(">H", read_exactly(conn, 2))[0]
            elif length == 127:
                length = struct.unpack(">Q", read_exactly(conn, 8))[0]
            mask = read_exactly(conn, 4) if second & 0x80 else b"\0\0\0\0"
            payload = bytes(b ^ mask[i % 4] for i, b in enumerate(read_exactly(conn, length)))
            if first & 0x0F == 0x8:
                code = struct.unpack(">H", payload[:2])[0] if len(payload) >= 2 else "none"
                print(f"{mode} close {code}", flush=True)
                return
    except EOFError:
        print(f"{mode} eof", flush=True)
    except Exception as error:  # a test fixture: report, never crash the listener
        print(f"{mode} error {error!r}", flush=True)
    finally:
        conn.close()


def main(port):
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(16)
    print(f"ready {port}", flush=True)
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


if __name__ == "__main__":
    main(int(sys.argv[1]))
