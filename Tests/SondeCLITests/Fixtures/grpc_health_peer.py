#!/usr/bin/env python3
"""A gRPC health server on loopback for the grpc prober's tests (grpcio and grpcio-health-checking, PyPI).

Usage: grpc_health_peer.py PLAIN_PORT TLS_PORT CERT KEY. Serves grpc.health.v1.Health on 127.0.0.1,
in clear text (h2c) on PLAIN_PORT and over TLS (the PEM certificate and key given) on TLS_PORT:
the server as a whole ("") and "sonde.Serving" are SERVING, "sonde.Down" is NOT_SERVING, any other
name is answered NOT_FOUND (grpcio-health-checking's Check). Prints "ready" once both listen; runs
until killed.
"""
import sys
import time
from concurrent import futures

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc


def main():
    plain_port, tls_port, cert, key = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    servicer = health.HealthServicer()
    servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    servicer.set("sonde.Serving", health_pb2.HealthCheckResponse.SERVING)
    servicer.set("sonde.Down", health_pb2.HealthCheckResponse.NOT_SERVING)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    if server.add_insecure_port(f"127.0.0.1:{plain_port}") != plain_port:
        sys.exit(f"could not listen on {plain_port}")
    with open(key, "rb") as k, open(cert, "rb") as c:
        credentials = grpc.ssl_server_credentials([(k.read(), c.read())])
    if server.add_secure_port(f"127.0.0.1:{tls_port}", credentials) != tls_port:
        sys.exit(f"could not listen on {tls_port}")
    server.start()
    print("ready", flush=True)
    server.wait_for_termination()


if __name__ == "__main__":
    main()
