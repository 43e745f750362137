#!/usr/bin/env python3
"""Writes synthetic captures with scapy (this kernel has no netem), analyses each with tshark
and with `sonde analyze`, and compares the per-connection counts.
Usage: capture_oracle.py SONDE WORKDIR [CAPTURE...]   (with captures: compare those instead)
Prints a JSON list, one entry per capture: {name, tshark: [...per stream...], sonde: [...], mismatches: [...]}.
Exit 0 when every count agrees; 1 otherwise (the mismatches say which)."""
import json
import os
import subprocess
import sys

from scapy.all import IP, IPv6, TCP, Ether, Dot1Q, CookedLinux, Raw, wrpcap, PcapWriter  # noqa: E402

C4, S4 = "10.0.0.1", "10.0.0.2"
C6, S6 = "fd00::1", "fd00::2"


def handshake(t, ip, sport=40000, dport=80, isn_c=1000, isn_s=5000, rtt=0.010):
    c, s = ip
    return [
        (t, c, s, TCP(sport=sport, dport=dport, flags="S", seq=isn_c, window=64240,
                      options=[("MSS", 1460), ("SAckOK", b""), ("Timestamp", (1, 0)), ("NOP", None), ("WScale", 7)])),
        (t + rtt / 2, s, c, TCP(sport=dport, dport=sport, flags="SA", seq=isn_s, ack=isn_c + 1, window=65160,
                                options=[("MSS", 1400), ("WScale", 9)])),
        (t + rtt, c, s, TCP(sport=sport, dport=dport, flags="A", seq=isn_c + 1, ack=isn_s + 1, window=502)),
    ]


def data(t, src, dst, sport, dport, seq, ack, payload, flags="PA", window=502):
    return (t, src, dst, TCP(sport=sport, dport=dport, flags=flags, seq=seq, ack=ack, window=window) / Raw(payload))


def ack(t, src, dst, sport, dport, seq, ack_no, window=502, flags="A"):
    return (t, src, dst, TCP(sport=sport, dport=dport, flags=flags, seq=seq, ack=ack_no, window=window))


def scenarios():
    ip4 = (C4, S4)
    t = 1_700_000_000.0
    out = {}
    # 1. clean: handshake, request, response, FIN both ways (client closes first)
    p = handshake(t, ip4)
    p += [data(t + .02, C4, S4, 40000, 80, 1001, 5001, b"GET / HTTP/1.1\r\n\r\n"),
          data(t + .03, S4, C4, 80, 40000, 5001, 1019, b"x" * 500),
          ack(t + .031, C4, S4, 40000, 80, 1019, 5501),
          ack(t + .04, C4, S4, 40000, 80, 1019, 5501, flags="FA"),
          ack(t + .041, S4, C4, 80, 40000, 5501, 1020, flags="FA"),
          ack(t + .042, C4, S4, 40000, 80, 1020, 5502)]
    out["clean"] = p
    # 2. retransmission after 200 ms (RTO), plus a keep-alive
    p = handshake(t, ip4)
    p += [data(t + .02, C4, S4, 40000, 80, 1001, 5001, b"a" * 100),
          data(t + .22, C4, S4, 40000, 80, 1001, 5001, b"a" * 100),
          ack(t + .23, S4, C4, 80, 40000, 5001, 1101),
          data(t + 5.0, C4, S4, 40000, 80, 1100, 5001, b"\x00"),  # keep-alive: one byte before next expected
          ack(t + 5.01, S4, C4, 80, 40000, 5001, 1101)]
    out["retransmission"] = p
    # 3. three duplicate ACKs then a fast retransmission within 20 ms
    p = handshake(t, ip4)
    seq = 1001
    for i in range(5):
        p.append(data(t + .02 + i * .001, C4, S4, 40000, 80, seq + i * 100, 5001, b"b" * 100))
    p += [ack(t + .031, S4, C4, 80, 40000, 5001, 1101),
          ack(t + .032, S4, C4, 80, 40000, 5001, 1101),
          ack(t + .033, S4, C4, 80, 40000, 5001, 1101),
          ack(t + .034, S4, C4, 80, 40000, 5001, 1101),
          data(t + .036, C4, S4, 40000, 80, 1101, 5001, b"b" * 100),
          ack(t + .045, S4, C4, 80, 40000, 5001, 1501)]
    out["fast-retransmission"] = p
    # 4. out of order: two segments swapped, 1 ms apart (well inside the 10 ms initial RTT)
    p = handshake(t, ip4)
    p += [data(t + .020, C4, S4, 40000, 80, 1101, 5001, b"c" * 100),
          data(t + .021, C4, S4, 40000, 80, 1001, 5001, b"c" * 100),
          ack(t + .03, S4, C4, 80, 40000, 5001, 1201)]
    out["out-of-order"] = p
    # 5. zero window from the server, then a window update; then the client resets
    p = handshake(t, ip4)
    p += [data(t + .02, C4, S4, 40000, 80, 1001, 5001, b"d" * 1000),
          ack(t + .03, S4, C4, 80, 40000, 5001, 2001, window=0),
          ack(t + .5, S4, C4, 80, 40000, 5001, 2001, window=4000),
          ack(t + .6, C4, S4, 40000, 80, 2001, 5001, flags="R")]
    out["zero-window-reset"] = p
    # 6. IPv6, two connections, the second reusing the port pair with a new ISN
    ip6 = (C6, S6)
    p = handshake(t, ip6, isn_c=100, rtt=0.004)
    p += [data(t + .01, C6, S6, 40000, 80, 101, 5001, b"e" * 10),
          ack(t + .02, S6, C6, 80, 40000, 5001, 111, flags="RA")]
    p += handshake(t + 1, ip6, isn_c=900000, isn_s=7000, rtt=0.006)
    out["ipv6-port-reuse"] = p
    # 7. window full: both SYNs carry window scaling (client 7, server 9). The client's first data
    #    comes before its ACK of the SYN/ACK and fills the SYN/ACK's window, which is never scaled
    #    (2000 bytes); then the server advertises 2 << 9 = 1024 bytes and the client fills them
    #    exactly; then 4 << 9 = 2048 bytes of which the client sends 1000: not full.
    p = handshake(t, ip4)
    p[1] = (p[1][0], S4, C4, TCP(sport=80, dport=40000, flags="SA", seq=5000, ack=1001, window=2000,
                                 options=[("MSS", 1400), ("WScale", 9)]))
    p = p[:2]
    p += [data(t + .011, C4, S4, 40000, 80, 1001, 5001, b"f" * 2000),
          ack(t + .02, S4, C4, 80, 40000, 5001, 3001, window=2),
          data(t + .021, C4, S4, 40000, 80, 3001, 5001, b"g" * 1024),
          ack(t + .03, S4, C4, 80, 40000, 5001, 4025, window=4),
          data(t + .031, C4, S4, 40000, 80, 4025, 5001, b"h" * 1000)]
    out["window-full"] = p
    return out


def write(name, packets, path, link):
    frames = []
    for when, src, dst, tcp in packets:
        ip = IPv6(src=src, dst=dst) if ":" in src else IP(src=src, dst=dst)
        if link == "ethernet":
            frame = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02") / ip / tcp
        elif link == "vlan":
            frame = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02") / Dot1Q(vlan=42) / ip / tcp
        elif link == "sll":
            frame = CookedLinux(pkttype=0, lladdrtype=1, lladdrlen=6, src=b"\x02\x00\x00\x00\x00\x01\x00\x00") / ip / tcp
        else:
            frame = ip / tcp
        frame.time = when
        frames.append(frame)
    if link == "raw":
        writer = PcapWriter(path, linktype=101, nano=True)
        for f in frames:
            writer.write(f)
        writer.close()
    else:
        wrpcap(path, frames)


def tshark(path):
    fields = ["tcp.stream", "tcp.analysis.retransmission", "tcp.analysis.fast_retransmission", "tcp.analysis.duplicate_ack",
              "tcp.analysis.out_of_order", "tcp.analysis.zero_window", "tcp.analysis.keep_alive", "tcp.flags.reset",
              "tcp.flags.fin", "tcp.analysis.initial_rtt", "tcp.analysis.window_full"]
    cmd = ["tshark", "-n", "-r", path, "-o", "tcp.relative_sequence_numbers:TRUE", "-T", "fields"]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    streams = {}
    for line in out.splitlines():
        cols = line.split("\t")
        if not cols[0]:
            continue
        s = streams.setdefault(int(cols[0]), {"retransmissions": 0, "fastRetransmissions": 0, "duplicateAcks": 0,
                                              "outOfOrder": 0, "zeroWindows": 0, "keepAlives": 0, "resets": 0,
                                              "fins": 0, "initialRttMs": None, "windowFull": 0})
        for key, col in [("retransmissions", 1), ("fastRetransmissions", 2), ("duplicateAcks", 3), ("outOfOrder", 4),
                         ("zeroWindows", 5), ("keepAlives", 6)]:
            if cols[col]:
                s[key] += 1
        if cols[7] in ("1", "True"):
            s["resets"] += 1
        if cols[8] in ("1", "True"):
            s["fins"] += 1
        if cols[9] and s["initialRttMs"] is None:
            s["initialRttMs"] = round(float(cols[9]) * 1000, 3)
        if len(cols) > 10 and cols[10]:
            s["windowFull"] += 1
    return [streams[k] for k in sorted(streams)]


def sonde(binary, path, workdir):
    out = subprocess.run([binary, "analyze", "--json", "--output-dir", os.path.join(workdir, "reports"), path],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"sonde analyze {path} exited {out.returncode}: {out.stderr}")
    flows = json.loads(out.stdout)["captures"][0]["flows"]
    result = []
    for f in flows:
        a, b = f["clientToServer"], f["serverToClient"]
        rtt = f.get("initialRttMs")  # absent when the capture has no complete handshake
        result.append({k: a[k] + b[k] for k in ("retransmissions", "fastRetransmissions", "duplicateAcks", "outOfOrder",
                                                "zeroWindows", "keepAlives", "windowFull")}
                      | {"resets": f["resets"], "fins": f["fins"], "initialRttMs": None if rtt is None else round(rtt, 3)})
    return result


def main():
    binary, workdir = sys.argv[1], sys.argv[2]
    os.makedirs(workdir, exist_ok=True)
    results, failed = [], False
    links = ["ethernet", "vlan", "sll", "raw"]
    if len(sys.argv) > 3:
        cases = [(os.path.basename(p), "as captured", p) for p in sys.argv[3:]]
    else:
        cases = []
        for index, (name, packets) in enumerate(scenarios().items()):
            link = links[index % len(links)]
            path = os.path.join(workdir, f"{name}-{link}.pcap")
            write(name, packets, path, link)
            cases.append((name, link, path))
    for name, link, path in cases:
        expected, observed = tshark(path), sonde(binary, path, workdir)
        mismatches = []
        if len(expected) != len(observed):
            mismatches.append(f"{len(observed)} connections, tshark has {len(expected)}")
        for i, (e, o) in enumerate(zip(expected, observed)):
            for key in e:
                if e[key] != o[key]:
                    mismatches.append(f"connection {i}: {key} sonde {o[key]} tshark {e[key]}")
        failed |= bool(mismatches)
        results.append({"name": name, "link": link, "file": path, "tshark": expected, "sonde": observed,
                        "mismatches": mismatches})
    print(json.dumps(results, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
