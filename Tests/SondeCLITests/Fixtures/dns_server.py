#!/usr/bin/env python3
"""A DNS server for the link tests (dnslib, PyPI): answers an A query for NAME with ADDRESS; NAME's
other types get no answer (NOERROR), other names NXDOMAIN. Listens on UDP and TCP, prints "ready"
once both listen, and exits after LIFETIME seconds at most (or when killed). With QUERY_LOG, each
query's arrival is appended to that file as a line "WALL_CLOCK_SECONDS QNAME QTYPE" as it comes.

Usage: dns_server.py LISTEN_ADDRESS PORT NAME ADDRESS [LIFETIME [QUERY_LOG]]
"""
import sys
import threading
import time

from dnslib import QTYPE, RCODE, RR, A
from dnslib.server import BaseResolver, DNSLogger, DNSServer


class Resolver(BaseResolver):
    def __init__(self, name, address, log=None):
        self.name = name.rstrip(".").lower()
        self.address = address
        self.log = log
        self.lock = threading.Lock()

    def resolve(self, request, handler):
        reply = request.reply()
        question = request.q
        if self.log:
            with self.lock, open(self.log, "a") as log:
                log.write("%.6f %s %s\n" % (time.time(), str(question.qname).rstrip("."), QTYPE[question.qtype]))
        if str(question.qname).rstrip(".").lower() != self.name:
            reply.header.rcode = RCODE.NXDOMAIN
        elif question.qtype == QTYPE.A:
            reply.add_answer(RR(question.qname, QTYPE.A, rdata=A(self.address), ttl=60))
        return reply


def main():
    if len(sys.argv) not in (5, 6, 7):
        sys.exit(__doc__)
    listen, port, name, address = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    lifetime = float(sys.argv[5]) if len(sys.argv) >= 6 else 300.0
    log = sys.argv[6] if len(sys.argv) == 7 else None
    logger = DNSLogger(log="-request,-reply,-truncated,-error,-recv,-send,-data", prefix=False)
    resolver = Resolver(name, address, log)
    servers = [DNSServer(resolver, address=listen, port=port, tcp=tcp, logger=logger) for tcp in (False, True)]
    for server in servers:
        server.start_thread()
    print("ready", flush=True)
    deadline = time.monotonic() + lifetime
    while time.monotonic() < deadline:
        time.sleep(0.2)


if __name__ == "__main__":
    main()
