"""An HTTP/1.1 upload sink for scripts/bench/link.sh's upload section: reads a request's headers and
its Content-Length bytes, answers 204, and serves requests until killed. Usage: link-sink.py PORT"""
import socket
import sys

server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", int(sys.argv[1])))
server.listen(8)
print("ready", flush=True)
while True:
    connection, _ = server.accept()
    with connection:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = connection.recv(65536)
            if not chunk:
                break
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        received = len(body)
        while received < length:
            chunk = connection.recv(1 << 20)
            if not chunk:
                break
            received += len(chunk)
        connection.sendall(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n")
