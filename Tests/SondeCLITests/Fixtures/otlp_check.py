#!/usr/bin/env python3
"""Compares what an OTLP receiver (otlp_receiver.py) got with a run's report.json.

usage: otlp_check.py REPORT_JSON RECEIVED_DIR

Prints one JSON object: the counts on each side and a list of problems (empty when every
transaction arrived once as a client span whose sonde.phase.* attributes equal report.json's
phases, whose http.client.network_timing event's times equal the report's dates, whose tasks
and run spans form one trace, and whose histogram counts equal the transaction counts). Exits 1
when there is a problem.
"""
import base64
import json
import os
import sys
from collections import Counter
from datetime import datetime, timezone

from otlp_attributes import attributes, value

report = json.load(open(sys.argv[1]))
received = sys.argv[2]
problems = []


def lines(name):
    path = os.path.join(received, name)
    if not os.path.exists(path):
        return []
    return [json.loads(line) for line in open(path) if line.strip()]


def micros(text):
    """µs since the epoch of an ISO 8601 UTC date with six fractional digits, exactly."""
    moment = datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
    delta = moment - datetime(1970, 1, 1, tzinfo=timezone.utc)
    return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds


PHASES = ["dns", "connect", "tls", "send", "wait", "receive", "total"]
DATES = [("http.dns.start_time", "domainLookupStartDate"), ("http.dns.end_time", "domainLookupEndDate"),
         ("http.connect.start_time", "connectStartDate"), ("http.connect.end_time", "connectEndDate"),
         ("http.secure_connect.start_time", "secureConnectionStartDate"),
         ("http.secure_connect.end_time", "secureConnectionEndDate"),
         ("http.request.start_time", "requestStartDate"), ("http.request.end_time", "requestEndDate"),
         ("http.response.start_time", "responseStartDate"), ("http.response.end_time", "responseEndDate")]

# report.json's transaction members carried by other attributes or the network timing event, and
# the ones with a declared attribute name; every other present scalar is `sonde.<snake_case>`.
OTLP_COVERED = {"request", "response", "countOfRequestHeaderBytesSent", "countOfRequestBodyBytesSent",
                "countOfResponseHeaderBytesReceived", "countOfResponseBodyBytesReceived", "negotiatedTLSProtocolVersion",
                "phases", "peerCertificates", "capture"} | {field for _, field in DATES} | {"fetchStartDate"}
OTLP_NAMES = {"networkProtocolName": "sonde.protocol", "isReusedConnection": "sonde.connection.reused",
              "isProxyConnection": "sonde.connection.proxy", "connectionID": "sonde.connection.id",
              "altSvcFailure": "sonde.alt_svc.failure", "remoteAddress": "network.peer.address", "remotePort": "network.peer.port",
              "localAddress": "network.local.address", "localPort": "network.local.port", "negotiatedTLSCipherSuite": "tls.cipher",
              "tlsSessionReused": "tls.resumed", "countOfResponseBodyBytesAfterDecoding": "sonde.response.body.decoded_size"}
# Objects in report.json that are one line of text as attributes.
OTLP_TEXT = {"http3Fallback", "altSvc", "altSvcFailure"}


def snake_case(name):
    out = ""
    for i, c in enumerate(name):
        if c.isupper() and i > 0 and (not name[i - 1].isupper() or (i + 1 < len(name) and name[i + 1].islower())):
            out += "_"
        out += c.lower()
    return out


def field_attribute_problems(key, attrs, tx):
    """Every present member of report.json's transaction not carried otherwise is an attribute with its value."""
    found = []
    for name, expected in tx.items():
        if name in OTLP_COVERED:
            continue
        attribute = OTLP_NAMES.get(name, "sonde." + snake_case(name))
        got = attrs.get(attribute)
        if expected is None:
            if attribute in attrs:
                found.append(f"{key}: {attribute} is {got!r}, report.json has no {name}")
        elif name in OTLP_TEXT:
            if not isinstance(got, str) or not got:
                found.append(f"{key}: {attribute} is {got!r} for report.json's {name}")
        elif isinstance(expected, float) or (isinstance(got, float) and not isinstance(expected, bool)):
            if not isinstance(got, (int, float)) or abs(got - expected) > 1e-9:
                found.append(f"{key}: {attribute} is {got!r}, report.json's {name} {expected!r}")
        elif got != expected:
            found.append(f"{key}: {attribute} is {got!r}, report.json's {name} {expected!r}")
    return found


# The report's transactions, keyed by (URL, fetchStartDate in µs).
transactions = {}
tx_check = {}
tasks = 0
for task in report.get("probes", []):
    tasks += 1
    for tx in task["transactionMetrics"]:
        key = (tx["request"]["url"], micros(tx["fetchStartDate"]))
        if key in transactions:
            problems.append(f"two transactions of the report share {key}")
        transactions[key] = tx
        tx_check[key] = task.get("check")

# Traces.
trace_requests = lines("traces.jsonl")
spans = []
resources = []
for record in trace_requests:
    for resource_spans in record["body"].get("resource_spans", []):
        resource = attributes(resource_spans.get("resource", {}).get("attributes"))
        resources.append(resource)
        for scope in resource_spans.get("scope_spans", []):
            for span in scope.get("spans", []):
                span["_resource"] = resource
                spans.append(span)

client = [s for s in spans if s.get("kind") == "SPAN_KIND_CLIENT" and s.get("name") != "sonde.ws.connection"
          and "sonde.resume.leg" not in attributes(s.get("attributes"))]
task_spans = {s["span_id"]: s for s in spans if s.get("name") == "sonde.task"}
roots = [s for s in spans if not s.get("parent_span_id")]
trace_ids = {s["trace_id"] for s in spans}
if len(roots) != 1:
    problems.append(f"{len(roots)} root spans (expected 1)")
if len(trace_ids) != 1:
    problems.append(f"{len(trace_ids)} trace ids (expected 1)")
if len(task_spans) != tasks:
    problems.append(f"{len(task_spans)} task spans for {tasks} tasks")
for task_span in task_spans.values():
    if roots and task_span.get("parent_span_id") != roots[0]["span_id"]:
        problems.append("a task span is not a child of the run's span")
        break

seen = Counter()
phase_values = 0
timing_values = 0
for span in client:
    attrs = attributes(span.get("attributes"))
    key = (attrs.get("url.full"), int(span["start_time_unix_nano"]) // 1000)
    seen[key] += 1
    tx = transactions.get(key)
    if tx is None:
        problems.append(f"a client span matches no transaction of the report: {key}")
        continue
    if span["_resource"].get("sonde.check") != tx_check.get(key):
        problems.append(f"{key}: resource sonde.check {span['_resource'].get('sonde.check')}, the report's task has {tx_check.get(key)}")
    if span.get("parent_span_id") not in task_spans:
        problems.append(f"the span of {key} is not a child of a task span")
    for phase in PHASES:
        expected = tx["phases"].get(phase)
        got = attrs.get("sonde.phase." + phase)
        if expected != got:
            problems.append(f"{key}: sonde.phase.{phase} is {got}, report.json has {expected}")
        elif expected is not None:
            phase_values += 1
    if attrs.get("http.response.status_code") != (tx.get("response") or {}).get("statusCode"):
        problems.append(f"{key}: status {attrs.get('http.response.status_code')} differs from the report's")
    if attrs.get("sonde.connection.reused") != tx["isReusedConnection"]:
        problems.append(f"{key}: sonde.connection.reused differs from the report's")
    problems += field_attribute_problems(key, attrs, tx)
    events = [e for e in span.get("events", []) if e.get("name") == "http.client.network_timing"]
    if len(events) != 1:
        problems.append(f"{key}: {len(events)} http.client.network_timing events")
        continue
    timing = attributes(events[0].get("attributes"))
    start = micros(tx["fetchStartDate"])
    for attribute, field in DATES:
        if field in tx and tx[field] is not None:
            expected = (micros(tx[field]) - start) / 1000
            if not isinstance(timing.get(attribute), float) or abs(timing[attribute] - expected) > 1e-9:
                problems.append(f"{key}: {attribute} is {timing.get(attribute)}, the report says {expected}")
            else:
                timing_values += 1
        elif attribute in timing:
            problems.append(f"{key}: {attribute} present, the report has no {field}")
for key in transactions:
    if seen[key] != 1:
        problems.append(f"transaction {key} arrived {seen[key]} times")

# traceparent: what the probed requests carried names this trace and its root span.
sent = {h["value"] for task in report.get("probes", []) for tx in task["transactionMetrics"]
        for h in tx["request"]["headers"] if h["name"].lower() == "traceparent"}
traceparent = None
if roots and trace_ids:
    trace_hex = base64.b64decode(next(iter(trace_ids))).hex()
    root_hex = base64.b64decode(roots[0]["span_id"]).hex()
    traceparent = f"00-{trace_hex}-{root_hex}-01"

# Metrics.
metric_requests = lines("metrics.jsonl")
points = {}
for record in metric_requests:
    for resource_metrics in record["body"].get("resource_metrics", []):
        resource = attributes(resource_metrics.get("resource", {}).get("attributes"))
        resources.append(resource)
        for scope in resource_metrics.get("scope_metrics", []):
            for metric in scope.get("metrics", []):
                kind = "histogram" if "histogram" in metric else "sum" if "sum" in metric else "gauge" if "gauge" in metric else "other"
                for point in metric.get(kind, {}).get("data_points", []):
                    points.setdefault(metric["name"], []).append((metric.get("unit"), attributes(point.get("attributes")), point))

durations = points.get("http.client.request.duration", [])
duration_count = sum(int(p["count"]) for _, _, p in durations)
with_total = [tx for tx in transactions.values() if tx["phases"].get("total") is not None]
if duration_count != len(with_total):
    problems.append(f"http.client.request.duration counts {duration_count}, the report has {len(with_total)} transactions")
if any(unit != "s" for unit, _, _ in durations):
    problems.append("http.client.request.duration is not in seconds")
duration_sum = sum(float(p.get("sum", 0)) for _, _, p in durations)
if abs(duration_sum - sum(tx["phases"]["total"] for tx in with_total) / 1000) > 1e-6:
    problems.append(f"http.client.request.duration sums {duration_sum} s, the report {sum(tx['phases']['total'] for tx in with_total) / 1000} s")
by_status = Counter()
for _, attrs, point in durations:
    by_status[attrs.get("http.response.status_code")] += int(point["count"])
    if sum(int(c) for c in point.get("bucket_counts", [])) != int(point["count"]):
        problems.append("a histogram's buckets do not add up to its count")
report_by_status = Counter((tx.get("response") or {}).get("statusCode") for tx in with_total)
if by_status != report_by_status:
    problems.append(f"counts by status {dict(by_status)} differ from the report's {dict(report_by_status)}")
phase_counts = Counter()
for _, attrs, point in points.get("sonde.http.phase.duration", []):
    phase_counts[(attrs.get("sonde.phase"), attrs.get("sonde.connection"))] += int(point["count"])
for phase in PHASES:
    for state in ("cold", "warm"):
        expected = sum(1 for tx in transactions.values() if tx["phases"].get(phase) is not None
                       and tx["isReusedConnection"] == (state == "warm"))
        if phase_counts[(phase, state)] != expected:
            problems.append(f"sonde.http.phase.duration {phase}/{state} counts {phase_counts[(phase, state)]}, the report {expected}")
if any(r.get("service.name") != "sonde" for r in resources):
    problems.append("a resource without service.name=sonde")

# Soaks: a span per connection attempt, a ping event per answered ping of the report's timeline.
ws_spans = [s for s in spans if s.get("name") == "sonde.ws.connection"]
ws_events = sum(1 for s in ws_spans for e in s.get("events", []) if e.get("name") == "sonde.ws.ping")
report_attempts = sum(len(soak.get("attempts", [])) for soak in report.get("soaks") or [])
report_points = sum(len(series.get("points", [])) for soak in report.get("soaks") or [] for series in soak.get("timeline", []))
if len(ws_spans) != report_attempts:
    problems.append(f"{len(ws_spans)} sonde.ws.connection spans for {report_attempts} attempts in the report")
if ws_events != report_points:
    problems.append(f"{ws_events} sonde.ws.ping events for {report_points} timeline points in the report")
rtts = sorted(value(a["value"]) for s in ws_spans for e in s.get("events", []) for a in e.get("attributes", []) if a["key"] == "sonde.ws.ping.rtt")
report_rtts = sorted(p[1] for soak in report.get("soaks") or [] for series in soak.get("timeline", []) for p in series.get("points", []))
if rtts != report_rtts:
    problems.append("the ping events' RTTs differ from the report's timeline")
ws_ids = sorted(base64.b64decode(s["span_id"]).hex() for s in ws_spans)
report_ws_ids = sorted(a["spanId"] for soak in report.get("soaks") or [] for a in soak.get("attempts", []) if a.get("spanId"))
if report_ws_ids and ws_ids != report_ws_ids:
    problems.append(f"the sonde.ws.connection span ids {ws_ids} differ from the report's attempts' spanId {report_ws_ids}")

# Resume trials: a span per trial (child of the run's span), a CLIENT span per leg (child of its
# trial's) whose id is the leg's spanId and whose values equal report.json's.
report_trials = report.get("resumeTrials") or []
trial_spans = {s["span_id"]: s for s in spans if s.get("name") == "sonde.resume.trial"}
leg_spans = [s for s in spans if s.get("parent_span_id") in trial_spans]
if len(trial_spans) != len(report_trials):
    problems.append(f"{len(trial_spans)} sonde.resume.trial spans for {len(report_trials)} trials in the report")
for trial_span in trial_spans.values():
    if roots and trial_span.get("parent_span_id") != roots[0]["span_id"]:
        problems.append("a trial span is not a child of the run's span")
        break
trials_by_number = {(t.get("check"), t["trial"]): t for t in report_trials}
legs_seen = Counter()
leg_values = 0
for span in trial_spans.values():
    attrs = attributes(span.get("attributes"))
    trial = trials_by_number.get((span["_resource"].get("sonde.check"), attrs.get("sonde.resume.trial")))
    if trial is None:
        problems.append(f"a trial span matches no trial of the report: {attrs.get('sonde.resume.trial')}")
        continue
    for key, field in [("sonde.resume.bytes_transferred", "bytesTransferred"), ("sonde.resume.bytes_wasted", "bytesWasted"),
                       ("sonde.resume.intact", "intact"), ("sonde.resume.duration", "durationMs")]:
        if attrs.get(key) != trial.get(field):
            problems.append(f"trial {trial['trial']}: {key} is {attrs.get(key)}, report.json has {trial.get(field)}")
    if "startedAt" in trial and int(span["start_time_unix_nano"]) // 1000 != micros(trial["startedAt"]):
        problems.append(f"trial {trial['trial']}: its span starts at {span['start_time_unix_nano']}, report.json at {trial['startedAt']}")
    legs = {leg["leg"]: leg for leg in trial.get("legs", [])}
    for leg_span in (s for s in leg_spans if s["parent_span_id"] == span["span_id"]):
        leg_attrs = attributes(leg_span.get("attributes"))
        leg = legs.get(leg_attrs.get("sonde.resume.leg"))
        if leg is None:
            problems.append(f"trial {trial['trial']}: a leg span matches no leg: {leg_attrs.get('sonde.resume.leg')}")
            continue
        legs_seen[(trial.get("check"), trial["trial"], leg["leg"])] += 1
        pairs = [("sonde.resume.leg.from_byte", leg["fromByte"]), ("sonde.resume.leg.bytes", leg["bytes"]),
                 ("sonde.resume.leg.duration", leg["durationMs"]), ("sonde.resume.leg.outcome", leg["outcome"]),
                 ("sonde.resume.leg.interrupted_by", leg.get("interruptedBy")), ("sonde.resume.leg.answered_with", leg.get("answeredWith")),
                 ("sonde.resume.leg.first_byte", leg.get("firstByteMs")), ("http.response.status_code", leg.get("status")),
                 ("error.type", (leg.get("error") or {}).get("code"))]
        for key, expected in pairs:
            if leg_attrs.get(key) != expected:
                problems.append(f"trial {trial['trial']} leg {leg['leg']}: {key} is {leg_attrs.get(key)}, report.json has {expected}")
            elif expected is not None:
                leg_values += 1
        if leg.get("spanId") and base64.b64decode(leg_span["span_id"]).hex() != leg["spanId"]:
            problems.append(f"trial {trial['trial']} leg {leg['leg']}: span id {base64.b64decode(leg_span['span_id']).hex()}, report.json {leg['spanId']}")
        if "startedAt" in trial:
            start = micros(trial["startedAt"]) + round(leg["startMs"] * 1000)
            end = start + round(leg["durationMs"] * 1000)
            if int(leg_span["start_time_unix_nano"]) // 1000 != start or abs(int(leg_span["end_time_unix_nano"]) // 1000 - end) > 1:
                problems.append(f"trial {trial['trial']} leg {leg['leg']}: span times differ from the report's startMs/durationMs")
report_legs = [(t.get("check"), t["trial"], leg["leg"]) for t in report_trials for leg in t.get("legs", [])]
for key in report_legs:
    if legs_seen[key] != 1:
        problems.append(f"leg {key} arrived {legs_seen[key]} times")
if len(leg_spans) != len(report_legs):
    problems.append(f"{len(leg_spans)} leg spans for {len(report_legs)} legs in the report")


def sums(name, attribute=None):
    totals = Counter()
    for _, attrs, point in points.get(name, []):
        totals[attrs.get(attribute) if attribute else None] += int(point.get("as_int", 0))
    return totals


def histogram_count(name):
    return sum(int(p["count"]) for _, _, p in points.get(name, []))


def check_metric(name, got, expected):
    if got != expected:
        problems.append(f"{name}: {got}, report.json: {expected}")


# Resume metrics.
if report_trials:
    outcome = lambda t: "intact" if t["intact"] else "corrupt" if t.get("sha256") else "failed"
    check_metric("sonde.transfer.resume.trials", dict(sums("sonde.transfer.resume.trials", "sonde.transfer.resume.outcome")),
                 dict(Counter(outcome(t) for t in report_trials)))
    check_metric("sonde.transfer.resume.duration count", histogram_count("sonde.transfer.resume.duration"), len(report_trials))
    check_metric("sonde.transfer.resume.legs", dict(sums("sonde.transfer.resume.legs", "sonde.transfer.resume.leg.outcome")),
                 dict(Counter(leg["outcome"] for t in report_trials for leg in t.get("legs", []))))
    check_metric("sonde.transfer.resume.leg.duration count", histogram_count("sonde.transfer.resume.leg.duration"), len(report_legs))
    check_metric("sonde.transfer.resume.bytes", dict(sums("sonde.transfer.resume.bytes", "sonde.transfer.bytes.kind")),
                 {"kept": sum(t["bytesTransferred"] - t["bytesWasted"] for t in report_trials), "wasted": sum(t["bytesWasted"] for t in report_trials)})
    check_metric("sonde.transfer.resume.latency count", histogram_count("sonde.transfer.resume.latency"),
                 sum(1 for t in report_trials for i in t["interruptions"] if i.get("resumeLatencyMs") is not None))
    if any(unit != "s" for n in ("sonde.transfer.resume.duration", "sonde.transfer.resume.leg.duration") for unit, _, _ in points.get(n, [])):
        problems.append("a resume duration histogram is not in seconds")

# Soak metrics.
report_soaks = report.get("soaks") or []
if report_soaks:
    check_metric("sonde.websocket.ping.duration count", histogram_count("sonde.websocket.ping.duration"), report_points)
    ping_sum = sum(float(p.get("sum", 0)) for _, _, p in points.get("sonde.websocket.ping.duration", []))
    if abs(ping_sum - sum(report_rtts) / 1000) > 1e-6:
        problems.append(f"sonde.websocket.ping.duration sums {ping_sum} s, the timeline {sum(report_rtts) / 1000} s")
    check_metric("sonde.websocket.pings", dict(sums("sonde.websocket.pings", "sonde.websocket.ping.result")),
                 {key: sum(s["pings"][key] for s in report_soaks) for key in ("answered", "missed", "unanswered")})
    attempts = [a for s in report_soaks for a in s.get("attempts", [])]
    check_metric("sonde.websocket.connection.attempts", dict(sums("sonde.websocket.connection.attempts", "sonde.websocket.attempt.outcome")),
                 dict(Counter("opened" if a.get("openedAt") else "failed" for a in attempts)))
    check_metric("sonde.websocket.handshake.duration count", histogram_count("sonde.websocket.handshake.duration"),
                 sum(1 for a in attempts if (a.get("handshake") or {}).get("totalMs") is not None))
    check_metric("sonde.websocket.reconnects", sums("sonde.websocket.reconnects")[None], sum(s["reconnects"]["count"] for s in report_soaks))
    causes = Counter()
    for s in report_soaks:
        causes.update(s["disconnects"]["byCause"])
    check_metric("sonde.websocket.disconnects", dict(sums("sonde.websocket.disconnects", "sonde.websocket.disconnect.cause")),
                 {k: v for k, v in causes.items()})
    subscriptions = [s["subscription"] for s in report_soaks if s.get("subscription")]
    if subscriptions or "sonde.graphql.subscription.messages" in points:
        check_metric("sonde.graphql.subscription.messages",
                     dict(sums("sonde.graphql.subscription.messages", "sonde.graphql.message.type")),
                     {kind: sum(s[key] for s in subscriptions) for kind, key in
                      (("next", "nexts"), ("next_with_errors", "nextErrors"), ("error", "errors"), ("complete", "completes"))})

# Metrics check kinds declare (an item of a section of the report with a `metrics` object, e.g. streams):
# each value arrives as gauge sonde.<path> at the item's url.full, durations in s.
AGGREGATIONS = {"min", "p50", "p90", "p95", "p99", "max", "mean"}
declared_values = 0
for key, section in report.items():
    if not isinstance(section, list):
        continue
    for item in section:
        if not isinstance(item, dict) or not isinstance(item.get("metrics"), dict):
            continue
        for path, expected in item["metrics"].items():
            last = path.rsplit(".", 1)[-1]
            unit, scale = ("s", 1000) if last in AGGREGATIONS else ("{count}", 1) if last == "count" else ("1", 1)
            got = [(u, p) for u, attrs, p in points.get("sonde." + path, []) if attrs.get("url.full") == item.get("url")]
            if len(got) != 1:
                problems.append(f"sonde.{path} at {item.get('url')}: {len(got)} points")
            elif got[0][0] != unit or abs(float(got[0][1].get("as_double", 0)) - expected / scale) > 1e-9:
                problems.append(f"sonde.{path}: {got[0][1].get('as_double')} {got[0][0]}, report.json: {expected / scale} {unit}")
            else:
                declared_values += 1

print(json.dumps({
    "declaredValues": declared_values,
    "traceId": base64.b64decode(next(iter(trace_ids))).hex() if len(trace_ids) == 1 else None,
    "resumeTrialSpans": len(trial_spans), "resumeLegSpans": len(leg_spans), "resumeLegs": len(report_legs),
    "resumeLegValuesEqual": leg_values,
    "resumeLegsMetric": sum(sums("sonde.transfer.resume.legs").values()),
    "wsPingDurationCount": histogram_count("sonde.websocket.ping.duration"),
    "wsAttemptsMetric": sum(sums("sonde.websocket.connection.attempts").values()),
    "graphqlNextMetric": sums("sonde.graphql.subscription.messages", "sonde.graphql.message.type").get("next", 0),
    "metricNames": sorted(points),
    "wsConnectionSpans": len(ws_spans), "wsPingEvents": ws_events,
    "transactions": len(transactions), "tasks": tasks, "clientSpans": len(client), "taskSpans": len(task_spans),
    "traceRequests": len(trace_requests), "metricRequests": len(metric_requests), "durationCount": duration_count,
    "phaseValuesEqual": phase_values, "timingValuesEqual": timing_values,
    "traceparentSent": sorted(sent), "traceparentExpected": traceparent,
    "checks": sorted({r["sonde.check"] for r in resources if "sonde.check" in r}),
    "spanChecks": dict(Counter(s["_resource"].get("sonde.check") for s in client)),
    "headers": [r["headers"] for r in trace_requests + metric_requests][:1],
    "problems": problems[:50],
}))
sys.exit(1 if problems else 0)
