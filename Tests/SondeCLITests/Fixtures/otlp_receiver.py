#!/usr/bin/env python3
"""An OTLP/HTTP (http/protobuf) receiver for sonde's tests, decoding with the opentelemetry-proto
package (the reference generated code, protobuf >= 5).

usage: otlp_receiver.py PORT OUT_DIR MAX_SECONDS [FAIL_FIRST] [grpc | redirect=URL]

Listens on 127.0.0.1:PORT; every POST to /v1/metrics or /v1/traces is decoded (after gunzipping a
body sent with Content-Encoding: gzip) and appended as one JSON line (MessageToDict, plus the
request's headers) to OUT_DIR/metrics.jsonl or OUT_DIR/traces.jsonl. Every request of any method
is also appended to OUT_DIR/requests.jsonl (method, path, headers), and one that is not a POST is
answered 200 with an empty body (a host that answers anything). The first FAIL_FIRST requests
(default 0) are answered 503 with Retry-After: 0 and not recorded, to exercise the sender's
retries. With `redirect=URL`, every POST is answered 303 See Other with Location: URL + its path
instead (and only recorded in requests.jsonl). Prints "ready" once it listens and exits after
MAX_SECONDS at the latest.

With `grpc`, it is an OTLP/gRPC receiver instead (grpcio, the package's *_pb2_grpc services): each
Export call is recorded the same way, its metadata as the headers; the first FAIL_FIRST calls
are answered UNAVAILABLE.
"""
import gzip
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

port, out_dir, max_seconds = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
fail_first = int(sys.argv[4]) if len(sys.argv) > 4 else 0
use_grpc = len(sys.argv) > 5 and sys.argv[5] == "grpc"
redirect_to = sys.argv[5][len("redirect="):] if len(sys.argv) > 5 and sys.argv[5].startswith("redirect=") else None
lock = threading.Lock()
state = {"seen": 0}

SIGNALS = {
    "/v1/metrics": (metrics_service_pb2.ExportMetricsServiceRequest, metrics_service_pb2.ExportMetricsServiceResponse, "metrics.jsonl"),
    "/v1/traces": (trace_service_pb2.ExportTraceServiceRequest, trace_service_pb2.ExportTraceServiceResponse, "traces.jsonl"),
}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def note(self):
        entry = {"method": self.command, "path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}}
        with lock, open(os.path.join(out_dir, "requests.jsonl"), "a") as out:
            out.write(json.dumps(entry) + "\n")

    def answer_anything(self):
        self.note()
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_HEAD = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = answer_anything

    def do_POST(self):
        self.note()
        length = int(self.headers.get("Content-Length", "0"))
        if length < 0 or length > 64 << 20:
            self.send_error(413)
            return
        body = self.rfile.read(length)
        if redirect_to is not None:
            self.send_response(303)
            self.send_header("Location", redirect_to + self.path)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if self.headers.get("Content-Encoding") == "gzip":
            try:
                body = gzip.decompress(body)
            except OSError:
                self.send_error(400)
                return
        signal = SIGNALS.get(self.path)
        if signal is None:
            self.send_error(404)
            return
        with lock:
            state["seen"] += 1
            failing = state["seen"] <= fail_first
        if failing:
            self.send_response(503)
            self.send_header("Retry-After", "0")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        request_type, response_type, file_name = signal
        if self.headers.get("Content-Type") != "application/x-protobuf":
            self.send_error(415)
            return
        message = request_type()
        message.ParseFromString(body)
        record = {"headers": {k.lower(): v for k, v in self.headers.items()},
                  "body": MessageToDict(message, preserving_proto_field_name=True)}
        with lock, open(os.path.join(out_dir, file_name), "a") as out:
            out.write(json.dumps(record) + "\n")
        answer = response_type().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)


def record(file_name, headers, message):
    entry = {"headers": headers, "body": MessageToDict(message, preserving_proto_field_name=True)}
    with lock, open(os.path.join(out_dir, file_name), "a") as out:
        out.write(json.dumps(entry) + "\n")


def serve_grpc():
    from concurrent import futures
    import grpc
    from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2_grpc
    from opentelemetry.proto.collector.trace.v1 import trace_service_pb2_grpc

    def answer(request, context, response_type, file_name):
        with lock:
            state["seen"] += 1
            failing = state["seen"] <= fail_first
        if failing:
            context.abort(grpc.StatusCode.UNAVAILABLE, "failing on purpose")
        record(file_name, {k.lower(): v for k, v in context.invocation_metadata()}, request)
        return response_type()

    class Traces(trace_service_pb2_grpc.TraceServiceServicer):
        def Export(self, request, context):
            return answer(request, context, trace_service_pb2.ExportTraceServiceResponse, "traces.jsonl")

    class Metrics(metrics_service_pb2_grpc.MetricsServiceServicer):
        def Export(self, request, context):
            return answer(request, context, metrics_service_pb2.ExportMetricsServiceResponse, "metrics.jsonl")

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(Traces(), server)
    metrics_service_pb2_grpc.add_MetricsServiceServicer_to_server(Metrics(), server)
    server.add_insecure_port(f"127.0.0.1:{port}")
    server.start()
    print("ready", flush=True)
    server.wait_for_termination(timeout=max_seconds)
    server.stop(0)


if use_grpc:
    serve_grpc()
else:
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Timer(max_seconds, server.shutdown).start()
    print("ready", flush=True)
    server.serve_forever()
