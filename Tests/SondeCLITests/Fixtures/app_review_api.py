#!/usr/bin/env python3
"""An example API for `sonde audit`'s ipv6.app-review (AppReviewCLITests): plain HTTP on
127.0.0.1:PORT (Python's http.server), handing out IPv4 literals and names the way real APIs do.

  GET /v1/feed        302, Location: http://127.0.0.1:PORT/v1/feed/page1   (an IPv4 literal)
  GET /v1/feed/page1  200 JSON, Alt-Svc: h2="127.0.0.1:PORT" (an IPv4 literal), a body with
                      $.items[0].media  http://127.0.0.1:PORT/media/1.mp4      (an IPv4 literal)
                      $.items[0].thumb  http://cdn.SITE:PORT/thumbs/1.jpg      (a name, same site)
                      $.next            http://api.SITE:PORT/v1/feed?page=2    (a name, same site)
                      $.partner         http://media.partner.test:PORT/p/1.jpg (a name, another site)
                      $.ad              http://ads.elsewhere.test:PORT/x       (a name, another site)
  GET /v1/literals    200 JSON handing out what the audit must not fetch, toward CANARY_PORT (a second
                      listener on 127.0.0.1 that logs "CANARY GET PATH Host=HOST"): a port that
                      overflows, a zone id, 100 URLs on another site then an IPv4 literal
                      (/late-literal), 64:ff9b::7f00:1 and ::1 literals (the host's loopback),
                      169.254.169.254, an IPv4 literal 40 arrays deep, a same-site name (/v1/named,
                      fetched); Alt-Svc h2="user:altsecret@127.0.0.1:CANARY_PORT" and
                      h2="[64:ff9b::7f00:1]:CANARY_PORT"
  anything else       200 text
Each request is logged to stdout as "GET PATH". With DNS_ADDRESS, a dnslib resolver on DNS_ADDRESS:53
(UDP and TCP) answers A 127.0.0.1 (and no AAAA) for every name under SITE and under partner.test, NXDOMAIN for
the rest (for the --link nat64 test, whose DNS64 synthesises from it). Prints "ready" once
listening; exits after LIFETIME seconds at most.

Usage: app_review_api.py PORT SITE [LIFETIME [DNS_ADDRESS [CANARY_PORT]]]  (DNS_ADDRESS "-": none)
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main():
    if len(sys.argv) not in (3, 4, 5, 6):
        sys.exit(__doc__)
    port, site = int(sys.argv[1]), sys.argv[2]
    lifetime = float(sys.argv[3]) if len(sys.argv) > 3 else 120
    dns_address = sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] != "-" else None
    canary = int(sys.argv[5]) if len(sys.argv) > 5 else port

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def send(self, status, body, content_type, extra=()):
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for name, value in extra:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            if self.server.server_address[1] != port:
                print("CANARY GET %s Host=%s" % (self.path, self.headers.get("Host")), flush=True)
                return self.send(200, "canary\n", "text/plain")
            print("GET " + self.path, flush=True)
            if self.path == "/v1/literals":
                c = canary
                body = {"hugeport": "http://127.0.0.1:99999999999999999999/hugeport", "zone": "http://[fe80::1%%25lo]:%d/zone" % c}
                body["items"] = [{"img": "http://img%d.othercdn.test/i/%d.jpg" % (i, i)} for i in range(100)]
                body["late"] = "http://127.0.0.1:%d/late-literal" % c
                body["v6embedded"] = "http://[64:ff9b::7f00:1]:%d/v6-embedded" % c
                body["v6loopback"] = "http://[::1]:%d/v6-loopback" % c
                body["metadata"] = "http://169.254.169.254/latest/meta-data/"
                body["deep"] = json.loads("[" * 40 + json.dumps("http://127.0.0.1:%d/deep40" % c) + "]" * 40)
                body["named"] = "http://api.%s:%d/v1/named" % (site, port)
                alt = 'h2="user:altsecret@127.0.0.1:%d"; ma=60, h2="[64:ff9b::7f00:1]:%d"; ma=60' % (c, c)
                self.send(200, json.dumps(body), "application/json", [("Alt-Svc", alt)])
            elif self.path == "/v1/feed":
                self.send(302, "", "text/plain", [("Location", "http://127.0.0.1:%d/v1/feed/page1" % port)])
            elif self.path == "/v1/feed/page1":
                body = {
                    "items": [{"id": 1, "media": "http://127.0.0.1:%d/media/1.mp4" % port,
                               "thumb": "http://cdn.%s:%d/thumbs/1.jpg" % (site, port)}],
                    "next": "http://api.%s:%d/v1/feed?page=2" % (site, port),
                    "partner": "http://media.partner.test:%d/p/1.jpg" % port,
                    "ad": "http://ads.elsewhere.test:%d/x" % port,
                }
                self.send(200, json.dumps(body), "application/json", [("Alt-Svc", 'h2="127.0.0.1:%d"; ma=60' % port)])
            else:
                self.send(200, "ok\n", "text/plain")

    for listen in {port, canary}:
        server = ThreadingHTTPServer(("127.0.0.1", listen), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
    if dns_address:
        from dnslib import QTYPE, RCODE, RR, A
        from dnslib.server import BaseResolver, DNSLogger, DNSServer

        class Resolver(BaseResolver):
            def resolve(self, request, handler):
                reply = request.reply()
                name = str(request.q.qname).rstrip(".").lower()
                if not (name.endswith("." + site) or name.endswith(".partner.test")):
                    reply.header.rcode = RCODE.NXDOMAIN
                elif request.q.qtype == QTYPE.A:
                    reply.add_answer(RR(request.q.qname, QTYPE.A, rdata=A("127.0.0.1"), ttl=60))
                return reply

        quiet = DNSLogger(log="-request,-reply,-truncated,-error,-recv,-send,-data", prefix=False)
        for tcp in (False, True):
            DNSServer(Resolver(), address=dns_address, port=53, tcp=tcp, logger=quiet).start_thread()
    print("ready", flush=True)
    time.sleep(lifetime)


if __name__ == "__main__":
    main()
