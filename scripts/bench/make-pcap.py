#!/usr/bin/env python3
"""Writes a synthetic Ethernet pcap of PACKETS TCP packets over 1,000 connections (handshake,
data both ways with ACKs, a retransmission now and then, FIN): the offline-analysis benchmark's
input. Usage: make-pcap.py FILE PACKETS"""
import struct
import sys


def checksum_free_ipv4(src, dst, payload_len):
    total = 20 + 20 + payload_len
    return struct.pack("!BBHHHBBH4s4s", 0x45, 0, total, 0, 0x4000, 64, 6, 0, bytes(src), bytes(dst))


def main():
    path, wanted = sys.argv[1], int(sys.argv[2])
    out = open(path, "wb")
    out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1))
    eth = b"\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x08\x00"
    payload = b"x" * 1000
    written, t = 0, 1_700_000_000 * 1_000_000
    flows = 1000
    per_flow = max(8, wanted // flows)
    for flow in range(flows):
        client, server = [10, 0, flow // 256, flow % 256], [10, 1, 0, 1]
        cport, sport = 10000 + flow, 443
        cseq, sseq = 1000, 5000

        def packet(from_client, flags, data=b"", seq=None, ack=None):
            nonlocal written, t
            src, dst = (client, server) if from_client else (server, client)
            sp, dp = (cport, sport) if from_client else (sport, cport)
            tcp = struct.pack("!HHIIBBHHH", sp, dp, seq, ack, 5 << 4, flags, 65535, 0, 0)
            frame = eth + checksum_free_ipv4(src, dst, len(data)) + tcp + data
            t += 20
            out.write(struct.pack("<IIII", t // 1_000_000, t % 1_000_000, len(frame), len(frame)))
            out.write(frame)
            written += 1

        packet(True, 0x02, seq=cseq, ack=0)
        packet(False, 0x12, seq=sseq, ack=cseq + 1)
        cseq += 1; sseq += 1
        packet(True, 0x10, seq=cseq, ack=sseq)
        for index in range((per_flow - 5) // 2):
            packet(False, 0x18, payload, seq=sseq, ack=cseq)
            if index % 97 == 96:
                packet(False, 0x18, payload, seq=sseq, ack=cseq)  # a retransmission
            sseq += len(payload)
            packet(True, 0x10, seq=cseq, ack=sseq)
        packet(True, 0x11, seq=cseq, ack=sseq)
        packet(False, 0x11, seq=sseq, ack=cseq + 1)
        if written >= wanted:
            break
    out.close()
    print(written)


if __name__ == "__main__":
    main()
