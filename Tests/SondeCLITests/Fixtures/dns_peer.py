#!/usr/bin/env python3
"""A DNS server on loopback for the dns prober's tests (dnslib, PyPI), over UDP and TCP on one port.

Usage: dns_peer.py PORT. Answers for example.test (A, AAAA, MX, TXT, SOA, NS; ANY gives them all),
backtrack.example.test (a TXT of 60 "a" and a "!", against which `(a+)+b` backtracks in engines that do),
NXDOMAIN with the zone's SOA in the authority section for any other name. Prints "ready PORT" once
both servers listen; runs until killed.
"""
import sys
import time

from dnslib import QTYPE, RCODE, RR
from dnslib.server import BaseResolver, DNSLogger, DNSServer

ZONE = """
example.test.      300 IN A     192.0.2.1
example.test.      300 IN AAAA  2001:db8::1
example.test.      300 IN MX    10 mail.example.test.
example.test.      300 IN TXT   "v=spf1 -all"
example.test.      300 IN NS    ns1.example.test.
example.test.      300 IN SOA   ns1.example.test. hostmaster.example.test. 2024010101 3600 600 604800 60
mail.example.test. 300 IN A     192.0.2.25
backtrack.example.test. 300 IN TXT "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"
"""


class ZoneResolver(BaseResolver):
    def __init__(self):
        self.records = RR.fromZone(ZONE)
        self.soa = [rr for rr in self.records if rr.rtype == QTYPE.SOA][0]

    def resolve(self, request, handler):
        reply = request.reply()
        name, qtype = request.q.qname, request.q.qtype
        known = [rr for rr in self.records if rr.rname == name]
        if not known:
            reply.header.rcode = RCODE.NXDOMAIN
            reply.add_auth(self.soa)
            return reply
        for rr in known:
            if qtype == QTYPE.ANY or rr.rtype == qtype:
                reply.add_answer(rr)
        if qtype == QTYPE.MX:
            reply.add_ar(*[rr for rr in self.records if str(rr.rname) == "mail.example.test." and rr.rtype == QTYPE.A])
        return reply


def main():
    port = int(sys.argv[1])
    resolver = ZoneResolver()
    quiet = DNSLogger(log="-request,-reply,-truncated,-error,-recv,-send,-data", prefix=False)
    for tcp in (False, True):
        DNSServer(resolver, port=port, address="127.0.0.1", tcp=tcp, logger=quiet).start_thread()
    print(f"ready {port}", flush=True)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
