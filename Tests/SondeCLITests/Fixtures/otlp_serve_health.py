#!/usr/bin/env python3
"""Reads what otlp_receiver.py recorded and prints serve's own health as its last export gave it.

usage: otlp_serve_health.py RECEIVED_DIR

Prints one JSON object: "exports" (how many health requests arrived: a resource with
sonde.command=serve and no sonde.run.id), and "last": metric name -> {"attr=value,...": value}
for the last of them; "temporality" of each sum, and "units".
"""
import json
import os
import sys

from otlp_attributes import attributes

path = os.path.join(sys.argv[1], "metrics.jsonl")
records = [json.loads(line) for line in open(path) if line.strip()] if os.path.exists(path) else []


exports = []
for record in records:
    for resource_metrics in record["body"].get("resource_metrics", []):
        resource = attributes(resource_metrics.get("resource", {}).get("attributes"))
        if resource.get("sonde.command") != "serve" or "sonde.run.id" in resource:
            continue
        metrics = {}
        temporality = {}
        units = {}
        for scope in resource_metrics.get("scope_metrics", []):
            for metric in scope.get("metrics", []):
                units[metric["name"]] = metric.get("unit")
                kind = "sum" if "sum" in metric else "gauge"
                data = metric.get(kind, {})
                if kind == "sum":
                    temporality[metric["name"]] = data.get("aggregation_temporality")
                for point in data.get("data_points", []):
                    key = ",".join(f"{k}={v}" for k, v in sorted(attributes(point.get("attributes")).items()))
                    number = int(point["as_int"]) if "as_int" in point else float(point.get("as_double", 0))
                    metrics.setdefault(metric["name"], {})[key] = number
        exports.append({"resource": resource, "metrics": metrics, "temporality": temporality, "units": units})

last = exports[-1] if exports else {}
print(json.dumps({"exports": len(exports), "last": last.get("metrics", {}), "temporality": last.get("temporality", {}),
                  "units": last.get("units", {}), "resource": last.get("resource", {})}))
