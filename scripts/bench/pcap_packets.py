"""The packets of a pcap file, for the link benchmarks (link-rate.py, link-quic.py,
link-delay-error.py): (timestamp in s, IP packet bytes as captured, original length) of a capture
with LINKTYPE_RAW, Linux cooked v1 or v2 (what tcpdump writes on a TUN or `any`)."""
import struct


def packets(path):
    with open(path, "rb") as f:
        header = f.read(24)
        magic = struct.unpack("<I", header[:4])[0]
        nano = magic == 0xA1B23C4D
        linktype = struct.unpack("<I", header[20:24])[0]
        skip = {101: 0, 12: 0, 228: 0, 113: 16, 276: 20}.get(linktype, 0)
        while True:
            record = f.read(16)
            if len(record) < 16:
                return
            seconds, fraction, captured, original = struct.unpack("<IIII", record)
            data = f.read(captured)
            yield seconds + fraction / (1e9 if nano else 1e6), data[skip:], original
