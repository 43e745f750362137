"""QUIC handshake round trips from a capture on the namespace's TUN, for scripts/bench/link.sh's quic
section: per client port, the time from the client's first datagram to the server's first, in ms
(one RTT plus the server's work), and their median. Usage: link-quic.py PCAP SERVER_PORT"""
import struct
import sys

from pcap_packets import packets

path, server_port = sys.argv[1], int(sys.argv[2])
first_out, first_in = {}, {}
for time, ip, _ in packets(path):
    if len(ip) < 28 or ip[0] >> 4 != 4 or ip[9] != 17:
        continue
    offset = (ip[0] & 15) * 4
    source, destination = struct.unpack(">HH", ip[offset:offset + 4])
    if destination == server_port:
        first_out.setdefault(source, time)
    elif source == server_port:
        first_in.setdefault(destination, time)
gaps = sorted((first_in[p] - first_out[p]) * 1000 for p in first_out if p in first_in)
if not gaps:
    sys.exit("no QUIC exchange in " + path)
print("capture: first client datagram to first server datagram, %d connections: median %.2f ms (min %.2f, max %.2f)" % (
    len(gaps), gaps[len(gaps) // 2] if len(gaps) % 2 else (gaps[len(gaps) // 2 - 1] + gaps[len(gaps) // 2]) / 2, gaps[0], gaps[-1]))
