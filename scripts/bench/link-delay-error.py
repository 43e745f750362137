"""The emulator's per-packet error from two captures, for scripts/bench/link.sh.

Usage: link-delay-error.py HOST_PCAP CLIENT_PCAP DELAY_UP_MS DELAY_DOWN_MS RATE_UP RATE_DOWN
HOST_PCAP is taken on the host side's TUN, CLIENT_PCAP on the namespace's (both raw IP, from
tcpdump). UDP datagrams are matched by their payload (link-udp-echo.py numbers them); for each the
one-way time through the emulator minus the configured delay and the serialization time
(length × 8 / rate) is the error. Prints its median, p90 and max per direction in µs.
"""
import statistics
import struct
import sys

from pcap_packets import packets


def udp_payloads(path):
    result = {}
    for when, ip, _ in packets(path):
        if len(ip) < 28 or ip[0] >> 4 != 4 or ip[9] != 17:
            continue
        header = (ip[0] & 15) * 4
        payload = ip[header + 8:header + 27]
        source_port = struct.unpack(">H", ip[header:header + 2])[0]
        if payload.startswith(b"sonde-link-"):
            result.setdefault((payload, source_port), when)
    return result, {key: len(ip) for key in []}


host, _ = udp_payloads(sys.argv[1])
client, _ = udp_payloads(sys.argv[2])
delay_up, delay_down = float(sys.argv[3]) / 1000, float(sys.argv[4]) / 1000
rate_up, rate_down = float(sys.argv[5]), float(sys.argv[6])
serial_up, serial_down = 100 * 8 / rate_up, 100 * 8 / rate_down
up, down = [], []
for key, at_client in client.items():
    at_host = host.get(key)
    if at_host is None:
        continue
    if at_host > at_client:   # sent by the client: up
        up.append((at_host - at_client - delay_up - serial_up) * 1e6)
    else:                     # the echo, sent by the host: down
        down.append((at_client - at_host - delay_down - serial_down) * 1e6)
for name, values in (("up", up), ("down", down)):
    if values:
        values.sort()
        print("%s: %d packets, error beyond delay + serialization: median %.0f µs, p90 %.0f µs, max %.0f µs, min %.0f µs" % (
            name, len(values), statistics.median(values), values[int(len(values) * 0.9)], values[-1], values[0]))
