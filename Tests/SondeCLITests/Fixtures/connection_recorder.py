#!/usr/bin/env python3
"""A TCP listener on 127.0.0.1 that records every connection and what it received, and answers
nothing: proof that a command sent nothing (no connection), or only what it should (a TLS
ClientHello, not an HTTP request). Prints "ready PORT" once it listens; each connection is
appended to LOG as a JSON line {"bytes": HEX} once its peer closes it or 2 s pass; exits after
LIFETIME seconds at most.

Usage: connection_recorder.py LOG [LIFETIME]
"""
import json
import socket
import sys
import threading
import time


def record(connection, log, lock):
    connection.settimeout(2.0)
    received = b""
    deadline = time.monotonic() + 2.0
    try:
        while time.monotonic() < deadline and len(received) < 65536:
            data = connection.recv(65536)
            if not data:
                break
            received += data
    except OSError:
        pass
    finally:
        connection.close()
    with lock, open(log, "a") as file:
        file.write(json.dumps({"bytes": received.hex()}) + "\n")


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    log = sys.argv[1]
    lifetime = float(sys.argv[2]) if len(sys.argv) == 3 else 120.0
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.settimeout(0.2)
    print("ready", listener.getsockname()[1], flush=True)
    lock = threading.Lock()
    deadline = time.monotonic() + lifetime
    while time.monotonic() < deadline:
        try:
            connection, _ = listener.accept()
        except socket.timeout:
            continue
        threading.Thread(target=record, args=(connection, log, lock), daemon=True).start()


if __name__ == "__main__":
    main()
