#!/usr/bin/env python3
"""A line protocol with STARTTLS on loopback, for the tcp prober's query_response tests.

Usage: starttls_peer.py PORT CERT KEY. For each connection: "220 peer.test ESMTP ready", then on
"STARTTLS <word>" answers "220 go ahead <word>" and upgrades to TLS (CERT, KEY), then says
"250 secure" and closes. Prints "ready PORT" once listening; runs until killed.
"""
import socket
import ssl
import sys
import threading


def serve(connection, context):
    try:
        connection.settimeout(10)
        connection.sendall(b"220 peer.test ESMTP ready\r\n")
        reader = connection.makefile("rb")
        line = reader.readline(4096).decode(errors="replace").strip()
        if not line.startswith("STARTTLS"):
            connection.sendall(b"500 expected STARTTLS\r\n")
            return
        word = line[len("STARTTLS"):].strip()
        connection.sendall(f"220 go ahead {word}\r\n".encode())
        secure = context.wrap_socket(connection, server_side=True)
        secure.sendall(b"250 secure\r\n")
        secure.close()
    except (OSError, ssl.SSLError):
        pass
    finally:
        connection.close()


def main():
    port, cert, key = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    print(f"ready {port}", flush=True)
    while True:
        connection, _ = listener.accept()
        threading.Thread(target=serve, args=(connection, context), daemon=True).start()


if __name__ == "__main__":
    main()
