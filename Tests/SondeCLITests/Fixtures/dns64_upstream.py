#!/usr/bin/env python3
"""An upstream for the nat64 link's DNS64 tests (dnslib, PyPI): a fixed zone under test., over UDP
(answers longer than 512 bytes truncated, TC set) and TCP. Negative answers carry the zone's SOA
(TTL 300, minimum 60). Prints "ready" once both listen; exits after LIFETIME seconds at most.

  v4only.test   A 127.0.0.1 (no AAAA: NODATA)       dual.test    A 127.0.0.1, AAAA 2001:db8::10
  alias.test    CNAME v4only.test                   many.test    40 A records 10.0.0.1-40
  empty.test    TXT only (NODATA for A and AAAA)    anything else: NXDOMAIN

Usage: dns64_upstream.py LISTEN_ADDRESS PORT [LIFETIME]
"""
import sys
import time

from dnslib import AAAA, CNAME, QTYPE, RCODE, RR, SOA, TXT, A, DNSLabel
from dnslib.server import BaseResolver, DNSHandler, DNSLogger, DNSServer

ZONE = {
    "v4only.test": [("A", A("127.0.0.1"))],
    "dual.test": [("A", A("127.0.0.1")), ("AAAA", AAAA("2001:db8::10"))],
    "alias.test": [("CNAME", CNAME("v4only.test."))],
    "many.test": [("A", A("10.0.0.%d" % n)) for n in range(1, 41)],
    "empty.test": [("TXT", TXT("nothing here"))],
}
SOA_RECORD = RR("test.", QTYPE.SOA, rdata=SOA("ns.test.", "admin.test.", (1, 60, 60, 60, 60)), ttl=300)


class Resolver(BaseResolver):
    def resolve(self, request, handler):
        reply = request.reply()
        name = str(request.q.qname).rstrip(".").lower()
        qtype = QTYPE[request.q.qtype]
        while True:
            records = ZONE.get(name)
            if records is None:
                reply.header.rcode = RCODE.NXDOMAIN
                reply.add_auth(SOA_RECORD)
                return reply
            cname = [r for t, r in records if t == "CNAME"]
            if cname and qtype != "CNAME":
                reply.add_answer(RR(name + ".", QTYPE.CNAME, rdata=cname[0], ttl=300))
                name = str(cname[0].label).rstrip(".").lower()
                continue
            matching = [r for t, r in records if t == qtype]
            for rdata in matching:
                reply.add_answer(RR(name + ".", getattr(QTYPE, qtype), rdata=rdata, ttl=120))
            if not matching:
                reply.add_auth(SOA_RECORD)
            return reply


class TruncatingHandler(DNSHandler):
    udplen = 512


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    listen, port = sys.argv[1], int(sys.argv[2])
    lifetime = float(sys.argv[3]) if len(sys.argv) == 4 else 300.0
    logger = DNSLogger(log="-request,-reply,-truncated,-error,-recv,-send,-data", prefix=False)
    servers = [DNSServer(Resolver(), address=listen, port=port, tcp=tcp, logger=logger, handler=TruncatingHandler) for tcp in (False, True)]
    for server in servers:
        server.start_thread()
    print("ready", flush=True)
    deadline = time.monotonic() + lifetime
    while time.monotonic() < deadline:
        time.sleep(0.2)


if __name__ == "__main__":
    main()
