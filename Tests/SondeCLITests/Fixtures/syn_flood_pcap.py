#!/usr/bin/env python3
"""Writes a pcap (Ethernet, microsecond timestamps) of COUNT TCP SYNs, each from its own address
(10.0.0.0/8, in order) and port to 192.0.2.1:80, 10 µs apart: COUNT connection attempts, as a
SYN flood or a scan looks on the wire. Headers are built byte by byte (RFC 791, RFC 9293) with
valid IPv4 and TCP checksums, so that tshark reads every packet as a SYN.

usage: syn_flood_pcap.py OUT_FILE COUNT
"""
import struct
import sys


def checksum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def main() -> int:
    path, count = sys.argv[1], int(sys.argv[2])
    if not 1 <= count <= 10_000_000:
        print("COUNT must be between 1 and 10,000,000", file=sys.stderr)
        return 2
    destination = bytes([192, 0, 2, 1])
    ethernet = bytes.fromhex("020000000001") + bytes.fromhex("020000000002") + struct.pack("!H", 0x0800)
    with open(path, "wb") as out:
        out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for index in range(count):
            source = struct.pack("!I", (10 << 24) | (index + 1))
            port = 1024 + index % 60000
            # TCP: ports, sequence, ack 0, data offset 5 words, SYN, window, checksum, urgent pointer.
            tcp = struct.pack("!HHIIBBHHH", port, 80, index * 7919 & 0xFFFFFFFF, 0, 5 << 4, 0x02, 64240, 0, 0)
            pseudo = source + destination + struct.pack("!BBH", 0, 6, len(tcp))
            tcp = tcp[:16] + struct.pack("!H", checksum(pseudo + tcp)) + tcp[18:]
            ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), index & 0xFFFF, 0x4000, 64, 6, 0, source, destination)
            ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
            frame = ethernet + ip + tcp
            micros = 1_800_000_000_000_000 + index * 10
            out.write(struct.pack("<IIII", micros // 1_000_000, micros % 1_000_000, len(frame), len(frame)))
            out.write(frame)
    return 0


if __name__ == "__main__":
    sys.exit(main())
