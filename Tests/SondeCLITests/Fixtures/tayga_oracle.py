#!/usr/bin/env python3
"""tayga (Debian's 0.9.2) as the oracle of sonde's NAT64Translator: builds a corpus of packets both ways
(TCP, UDP, ICMP echo and errors quoting packets, MTU and hop-limit edges), writes each into tayga's TUN in a
namespace of its own through an AF_PACKET socket, and collects everything tayga writes back within 0.3 s.
Prints JSON: [{"name", "direction": "up"|"down", "input": hex, "tayga": [hex, ...]}]. Root only.
The addresses: the link fd64:1::2 mapped to 192.168.255.101, tayga's own 192.168.255.1 and fd64:2::1, and a
global server 100.127.64.1 (tayga refuses non-global IPv4 under 64:ff9b::/96).
Usage: tayga_oracle.py NAMESPACE"""
import ctypes, ipaddress, json, os, signal, socket, struct, subprocess, sys, time

# A test process may start this with signals blocked or ignored (both are inherited across exec):
# tayga must die on SIGTERM.
signal.pthread_sigmask(signal.SIG_SETMASK, [])
for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(number, signal.SIG_DFL)

NS = sys.argv[1] if len(sys.argv) > 1 else "sonde-oracle-%d" % os.getpid()
TUN = "sot%d" % (os.getpid() % 100000)
DIR = "/tmp/%s" % NS
C6, C4, SERVER4 = "fd64:1::2", "192.168.255.101", "100.127.64.1"
PREFIX = ipaddress.IPv6Address("64:ff9b::").packed[:12]
a6 = lambda s: ipaddress.IPv6Address(s).packed
a4 = lambda s: ipaddress.IPv4Address(s).packed


def checksum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def l4(proto, src, dst, body, ck_off):
    pseudo = src + dst + (struct.pack("!IxxxB", len(body), proto) if len(src) == 16 else struct.pack("!xBH", proto, len(body)))
    return body[:ck_off] + struct.pack("!H", checksum(pseudo + body)) + body[ck_off + 2:]


def tcp(src, dst, sport, dport, flags, payload=b"", opts=b""):
    off = (20 + len(opts)) // 4
    body = struct.pack("!HHIIBBHHH", sport, dport, 1000, 2000 if flags & 0x10 else 0, off << 4, flags, 65535, 0, 0) + opts + payload
    return l4(6, src, dst, body, 16)


def udp(src, dst, sport, dport, payload, zero=False):
    body = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
    return body if zero else l4(17, src, dst, body, 6)


def ip6(src, dst, nh, payload, hlim=64, tc=0):
    return struct.pack("!IHBB16s16s", (6 << 28) | (tc << 20), len(payload), nh, hlim, src, dst) + payload


def ip4(src, dst, proto, payload, ttl=64, df=True, ident=0x1234, tos=0):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, tos, 20 + len(payload), ident, 0x4000 if df else 0, ttl, proto, 0, src, dst)
    return h[:10] + struct.pack("!H", checksum(h)) + h[12:] + payload


def icmp6(src, dst, t, c, rest, payload):
    return l4(58, src, dst, struct.pack("!BBH", t, c, 0) + rest + payload, 2)


def icmp4(t, c, rest, payload):
    body = struct.pack("!BBH", t, c, 0) + rest + payload
    return body[:2] + struct.pack("!H", checksum(body)) + body[4:]


def corpus():
    rnd = lambda n: bytes((i * 37 + 11) & 0xFF for i in range(n))  # fixed bytes: the same corpus every run
    c6, s6, c4, s4 = a6(C6), PREFIX + a4(SERVER4), a4(C4), a4(SERVER4)
    mss = b"\x02\x04\x05\xa0"
    up = [
        ("tcp-syn", ip6(c6, s6, 6, tcp(c6, s6, 40000, 18643, 0x02, opts=mss))),
        ("tcp-1440", ip6(c6, s6, 6, tcp(c6, s6, 40000, 18643, 0x18, rnd(1440)))),
        ("tcp-traffic-class", ip6(c6, s6, 6, tcp(c6, s6, 40000, 18643, 0x18, b"GET / HTTP/1.1\r\n\r\n"), tc=0x28)),
        ("udp-40", ip6(c6, s6, 17, udp(c6, s6, 40001, 53, rnd(32)))),
        ("udp-1452", ip6(c6, s6, 17, udp(c6, s6, 40002, 443, rnd(1444)))),
        ("udp-bad-checksum", ip6(c6, s6, 17, udp(c6, s6, 40001, 53, rnd(32))[:6] + b"\x12\x34" + rnd(32))),
        ("echo-request", ip6(c6, s6, 58, icmp6(c6, s6, 128, 0, struct.pack("!HH", 7, 1), b"ping" * 8))),
        ("port-unreachable-6", ip6(c6, s6, 58, icmp6(c6, s6, 1, 4, b"\0" * 4, ip6(s6, c6, 17, udp(s6, c6, 443, 40003, b"late datagram"))))),
        ("loopback-server", ip6(c6, PREFIX + a4("127.0.0.1"), 6, tcp(c6, PREFIX + a4("127.0.0.1"), 40004, 18643, 0x02, opts=mss))),
        ("hop-limit-1", ip6(c6, s6, 6, tcp(c6, s6, 40005, 18643, 0x02, opts=mss), hlim=1)),
    ]
    down = [
        ("tcp-syn-ack", ip4(s4, c4, 6, tcp(s4, c4, 18643, 40000, 0x12, opts=mss))),
        ("tcp-1440-df", ip4(s4, c4, 6, tcp(s4, c4, 18643, 40000, 0x18, rnd(1440)))),
        ("tcp-1460-df", ip4(s4, c4, 6, tcp(s4, c4, 18643, 40000, 0x18, rnd(1460)))),
        ("udp-100", ip4(s4, c4, 17, udp(s4, c4, 53, 40001, rnd(92)), df=False)),
        ("udp-1300-df-clear", ip4(s4, c4, 17, udp(s4, c4, 443, 40002, rnd(1292)), df=False)),
        ("udp-zero-checksum", ip4(s4, c4, 17, udp(s4, c4, 53, 40001, rnd(32), zero=True))),
        ("echo-reply", ip4(s4, c4, 1, icmp4(0, 0, struct.pack("!HH", 7, 1), b"ping" * 8))),
        ("port-unreachable-4", ip4(s4, c4, 1, icmp4(3, 3, b"\0" * 4, ip4(c4, s4, 17, udp(c4, s4, 40001, 443, b"x" * 20))))),
        ("tcp-port-unreachable-4", ip4(s4, c4, 1, icmp4(3, 3, b"\0" * 4, ip4(c4, s4, 6, tcp(c4, s4, 40000, 18643, 0x02, opts=mss))))),
        ("frag-needed-28", ip4(s4, c4, 1, icmp4(3, 4, struct.pack("!HH", 0, 1400), ip4(c4, s4, 6, tcp(c4, s4, 40000, 18643, 0x18, b"y" * 1440))[:28]))),
        ("frag-needed-548", ip4(s4, c4, 1, icmp4(3, 4, struct.pack("!HH", 0, 1400), ip4(c4, s4, 6, tcp(c4, s4, 40000, 18643, 0x18, b"y" * 1440))[:548]))),
        ("time-exceeded-syn", ip4(s4, c4, 1, icmp4(11, 0, b"\0" * 4, ip4(c4, s4, 6, tcp(c4, s4, 40000, 18643, 0x02, opts=mss))))),
        ("ttl-1", ip4(s4, c4, 6, tcp(s4, c4, 18643, 40000, 0x12, opts=mss), ttl=1)),
    ]
    return up, down


def main():
    subprocess.run(["ip", "netns", "del", NS], stderr=subprocess.DEVNULL)
    os.makedirs(DIR, exist_ok=True)
    conf = os.path.join(DIR, "tayga.conf")
    with open(conf, "w") as f:
        f.write(f"tun-device {TUN}\nipv4-addr 192.168.255.1\nipv6-addr fd64:2::1\nprefix 64:ff9b::/96\nmap {C4} {C6}\ndata-dir {DIR}\n")
    for c in (["ip", "netns", "add", NS], ["ip", "netns", "exec", NS, "tayga", "-c", conf, "--mktun"],
              ["ip", "netns", "exec", NS, "sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1", "net.ipv6.conf.all.disable_ipv6=1"],
              ["ip", "-n", NS, "link", "set", TUN, "up"]):
        subprocess.run(c, check=True, stdout=subprocess.DEVNULL)
    tayga = subprocess.Popen(["timeout", "60", "ip", "netns", "exec", NS, "tayga", "-c", conf, "--nodetach"])
    results = []
    try:
        time.sleep(0.5)
        with open(f"/run/netns/{NS}") as nsf:
            assert ctypes.CDLL(None, use_errno=True).setns(nsf.fileno(), 0x40000000) == 0
        s = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(3))
        s.bind((TUN, 3))
        s.settimeout(0.3)
        up, down = corpus()
        for direction, items, proto in (("up", up, 0x86DD), ("down", down, 0x0800)):
            for name, pkt in items:
                s.sendto(pkt, (TUN, proto))
                outputs, deadline = [], time.time() + 0.3
                while time.time() < deadline:
                    try:
                        data, addr = s.recvfrom(65535)
                    except socket.timeout:
                        break
                    if addr[2] != socket.PACKET_OUTGOING:
                        outputs.append(data.hex())
                results.append({"name": name, "direction": direction, "input": pkt.hex(), "tayga": outputs})
    finally:
        tayga.terminate()
        try:
            tayga.wait(timeout=5)
        except subprocess.TimeoutExpired:
            tayga.kill()
            tayga.wait()
        subprocess.run(["ip", "netns", "del", NS])
        subprocess.run(["rm", "-rf", DIR])
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
