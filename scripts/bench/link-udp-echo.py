"""UDP echo over an emulated link, for scripts/bench/link.sh's per-packet error.

Usage: link-udp-echo.py server PORT SECONDS   (a host-side echo on 127.0.0.1:PORT, ends after SECONDS)
       link-udp-echo.py client PORT COUNT     (sends COUNT numbered 100-byte datagrams, 5 ms apart,
                                               waits for each echo; prints the median RTT in ms)
       link-udp-echo.py stream PORT COUNT GAP_MS (sends COUNT datagrams GAP_MS apart without waiting
                                               for echoes; prints the mean and median RTT in ms)
Loopback only; every loop is bounded.
"""
import socket
import statistics
import sys
import time

role, port, amount = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
if role == "server":
    sock.bind(("127.0.0.1", port))
    sock.settimeout(0.5)
    end = time.monotonic() + amount
    while time.monotonic() < end:
        try:
            data, peer = sock.recvfrom(2048)
        except socket.timeout:
            continue
        sock.sendto(data, peer)
elif role == "stream":
    gap = float(sys.argv[4]) / 1000
    sent = {}
    rtts = []
    sock.setblocking(False)
    deadline = time.monotonic() + amount * gap + 5
    sequence = 0
    next_send = time.monotonic()
    while time.monotonic() < deadline and len(rtts) < amount:
        now = time.monotonic()
        if sequence < amount and now >= next_send:
            payload = b"sonde-link-%08d" % sequence
            sock.sendto(payload + b"." * (72 - len(payload)), ("127.0.0.1", port))
            sent[sequence] = now
            sequence += 1
            next_send += gap
        try:
            data, _ = sock.recvfrom(2048)
            rtts.append((time.monotonic() - sent[int(data[11:19])]) * 1000)
        except BlockingIOError:
            time.sleep(0.0002)
    print("udp stream, %d datagrams %.1f ms apart: %d answered, RTT mean %.1f ms, median %.1f ms" % (
        amount, gap * 1000, len(rtts), statistics.mean(rtts), statistics.median(rtts)))
else:
    sock.settimeout(1.0)
    rtts = []
    for sequence in range(amount):
        payload = b"sonde-link-%08d" % sequence
        payload += b"." * (72 - len(payload))  # 72 + 8 + 20 = 100 bytes of IP
        start = time.monotonic()
        sock.sendto(payload, ("127.0.0.1", port))
        try:
            sock.recvfrom(2048)
            rtts.append((time.monotonic() - start) * 1000)
        except socket.timeout:
            pass
        time.sleep(0.005)
    print("udp echo: %d of %d answered, RTT median %.3f ms p90 %.3f ms" % (
        len(rtts), amount, statistics.median(rtts), sorted(rtts)[int(len(rtts) * 0.9)]))
