#!/usr/bin/env python3
"""Reads what an OTLP receiver (otlp_receiver.py) got for one run and states it in the terms of the
OpenTelemetry semantic conventions and SDK variables, beside the run's report.json.

usage: otlp_conventions.py REPORT_JSON RECEIVED_DIR

Prints one JSON object:
- clientSpans: per client span (transaction), its name, http.request.method,
  http.request.method_original, url.full, and its sizes beside report.json's
  (http.request.size against countOfRequestHeaderBytesSent + countOfRequestBodyBytesSent, …);
- taskUrls: the task spans' url.full;
- headerNamespaceMisuse: attribute keys under http.request.header.* / http.response.header.* whose
  value is not a list of strings (the conventions' http.request.header.<key> holds header values);
- durationMethods: the http.request.method values of http.client.request.duration's points;
- resources: every resource's service.name, service.instance.id and other attributes, and the
  Content-Encoding of every request;
- phaseBuckets: per sonde.http.phase.duration point (phase, connection state): its explicit bounds,
  bucket counts, and the bucket counts report.json's values give with those bounds
  (OpenTelemetry's buckets are (lower, upper]).
"""
import json
import os
import sys
from datetime import datetime, timezone

from otlp_attributes import attributes

report = json.load(open(sys.argv[1]))
received = sys.argv[2]


def micros(text):
    """µs since the epoch of an ISO 8601 UTC date with six fractional digits, exactly."""
    moment = datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
    delta = moment - datetime(1970, 1, 1, tzinfo=timezone.utc)
    return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds


def lines(name):
    path = os.path.join(received, name)
    if not os.path.exists(path):
        return []
    return [json.loads(line) for line in open(path) if line.strip()]


transactions = [tx for task in report.get("probes", []) for tx in task["transactionMetrics"]]

resources = []
encodings = []
client_spans = []
task_urls = []
misuse = []
for record in lines("traces.jsonl"):
    encodings.append(record["headers"].get("content-encoding"))
    for resource_spans in record["body"].get("resource_spans", []):
        resources.append(attributes(resource_spans.get("resource", {}).get("attributes")))
        for scope in resource_spans.get("scope_spans", []):
            for span in scope.get("spans", []):
                for item in span.get("attributes", []):
                    key = item["key"]
                    if key.startswith("http.request.header.") or key.startswith("http.response.header."):
                        values = item.get("value", {}).get("array_value", {}).get("values")
                        if values is None or any("string_value" not in v for v in values):
                            misuse.append(key)
                attrs = attributes(span.get("attributes"))
                if span.get("name") == "sonde.task":
                    task_urls.append(attrs.get("url.full"))
                if span.get("kind") != "SPAN_KIND_CLIENT" or "sonde.resume.leg" in attrs or span.get("name") == "sonde.ws.connection":
                    continue
                entry = {"name": span.get("name"), "method": attrs.get("http.request.method"),
                         "methodOriginal": attrs.get("http.request.method_original"), "urlFull": attrs.get("url.full"),
                         "requestSize": attrs.get("http.request.size"), "requestBodySize": attrs.get("http.request.body.size"),
                         "responseSize": attrs.get("http.response.size"), "responseBodySize": attrs.get("http.response.body.size")}
                # The report's transaction: same start (µs), any URL form.
                start = int(span["start_time_unix_nano"]) // 1000
                for tx in transactions:
                    if micros(tx["fetchStartDate"]) == start:
                        entry["reportRequestSize"] = tx["countOfRequestHeaderBytesSent"] + tx["countOfRequestBodyBytesSent"]
                        entry["reportRequestBodySize"] = tx["countOfRequestBodyBytesSent"]
                        entry["reportResponseSize"] = tx["countOfResponseHeaderBytesReceived"] + tx["countOfResponseBodyBytesReceived"]
                        entry["reportResponseBodySize"] = tx["countOfResponseBodyBytesReceived"]
                        entry["reportMethod"] = tx["request"]["method"]
                        entry["reportUrl"] = tx["request"]["url"]
                        break
                client_spans.append(entry)

duration_methods = []
phase_buckets = []
for record in lines("metrics.jsonl"):
    encodings.append(record["headers"].get("content-encoding"))
    for resource_metrics in record["body"].get("resource_metrics", []):
        resources.append(attributes(resource_metrics.get("resource", {}).get("attributes")))
        for scope in resource_metrics.get("scope_metrics", []):
            for metric in scope.get("metrics", []):
                for point in metric.get("histogram", {}).get("data_points", []):
                    attrs = attributes(point.get("attributes"))
                    if metric["name"] == "http.client.request.duration":
                        duration_methods.append(attrs.get("http.request.method"))
                    if metric["name"] != "sonde.http.phase.duration":
                        continue
                    bounds = [float(b) for b in point.get("explicit_bounds", [])]
                    phase, state = attrs.get("sonde.phase"), attrs.get("sonde.connection")
                    expected = [0] * (len(bounds) + 1)
                    for tx in transactions:
                        value = tx["phases"].get(phase)
                        if value is None or tx["isReusedConnection"] != (state == "warm"):
                            continue
                        seconds = value / 1000
                        expected[next((i for i, b in enumerate(bounds) if seconds <= b), len(bounds))] += 1
                    phase_buckets.append({"phase": phase, "connection": state, "bounds": bounds,
                                          "counts": [int(c) for c in point.get("bucket_counts", [])], "expected": expected})

print(json.dumps({"clientSpans": client_spans, "taskUrls": task_urls, "headerNamespaceMisuse": sorted(set(misuse)),
                  "durationMethods": duration_methods, "resources": resources, "encodings": encodings,
                  "phaseBuckets": phase_buckets}))
