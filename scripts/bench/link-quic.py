"""QUIC handshake round trips from a capture on the namespace's TUN, for scripts/bench/link.sh's quic
section: per client port, the time from the client's first datagram to the server's first, in ms
(one RTT plus the server's work), and their median. Usage: link-quic.py PCAP SERVER_PORT"""
import struct
import sys

path, server_port = sys.argv[1], int(sys.argv[2])
first_out, first_in = {}, {}
with open(path, "rb") as f:
    header = f.read(24)
    nano = struct.unpack("<I", header[:4])[0] == 0xA1B23C4D
    linktype = struct.unpack("<I", header[20:24])[0]
    while True:
        record = f.read(16)
        if len(record) < 16:
            break
        seconds, fraction, captured, _ = struct.unpack("<IIII", record)
        packet = f.read(captured)
        time = seconds + fraction / (1e9 if nano else 1e6)
        ip = packet if linktype in (101, 12, 228) else packet[16:] if linktype == 113 else packet
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
