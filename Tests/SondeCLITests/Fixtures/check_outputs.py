#!/usr/bin/env python3
"""Checks a sonde run folder's HAR, JUnit and (optionally) Prometheus files the way their
consumers would read them. Usage: check_outputs.py RUN_FOLDER HAR_SCHEMA [PROM_FILE]
Prints one JSON object of facts on stdout; exits 1 with the problems on stderr."""
import json
import math
import re
import sys
import xml.etree.ElementTree as ElementTree

import jsonschema


# report.json's transaction members that HAR's standard members carry (request, response, timings,
# serverIPAddress, connection), those HAR names otherwise, and the ones whose absence is a value.
HAR_STANDARD = {
    "request", "response", "countOfRequestHeaderBytesSent", "countOfRequestBodyBytesSent", "countOfResponseHeaderBytesReceived",
    "countOfResponseBodyBytesReceived", "countOfResponseBodyBytesAfterDecoding", "fetchStartDate", "domainLookupStartDate",
    "domainLookupEndDate", "connectStartDate", "secureConnectionStartDate", "secureConnectionEndDate", "connectEndDate",
    "requestStartDate", "requestEndDate", "responseStartDate", "responseEndDate", "queue", "phases", "remoteAddress", "connectionID",
}
HAR_RENAMED = {"negotiatedTLSProtocolVersion": "_tlsProtocolVersion", "negotiatedTLSCipherSuite": "_tlsCipherSuite"}
HAR_ABSENT = {"libcurlQueue": -1}
# Members that are objects in report.json and one line of text in HAR (null when absent).
HAR_TEXT = {"http3Fallback", "altSvc", "altSvcFailure"}


def sonde_members_problems(index, entry, t):
    """Every member of report.json's transaction that HAR does not carry in a standard member is
    the entry's `_<name>` with the same value (numbers within a microsecond)."""
    problems = []
    for name, value in t.items():
        if name in HAR_STANDARD or name == "peerCertificates" or name == "capture":
            continue
        member = HAR_RENAMED.get(name, "_" + name)
        if member not in entry:
            problems.append(f"entry {index}: HAR has no {member} for report.json's {name}")
            continue
        got = entry[member]
        if name in HAR_TEXT:
            if (got is None) != (value is None) or (got is not None and not isinstance(got, str)):
                problems.append(f"entry {index}: HAR {member} {got!r} for report.json's {name} {value!r}")
            continue
        expected = HAR_ABSENT.get(name) if value is None and name in HAR_ABSENT else value
        if isinstance(expected, (int, float)) and not isinstance(expected, bool) and isinstance(got, (int, float)):
            if not math.isclose(got, expected, abs_tol=0.0011):
                problems.append(f"entry {index}: HAR {member} {got} != {name} {expected}")
        elif got != expected:
            problems.append(f"entry {index}: HAR {member} {got!r} != {name} {expected!r}")
    return problems


def main() -> int:
    folder, har_schema = sys.argv[1], sys.argv[2]
    prom = sys.argv[3] if len(sys.argv) > 3 else None
    problems, facts = [], {}

    report = json.load(open(f"{folder}/report.json"))
    har = json.load(open(f"{folder}/report.har"))
    for error in jsonschema.Draft202012Validator(json.load(open(har_schema))).iter_errors(har):
        problems.append(f"HAR schema: {'/'.join(map(str, error.path))}: {error.message}")
    entries = har["log"]["entries"]
    transactions = [t for p in report["probes"] for t in p["transactionMetrics"]]
    facts["harEntries"] = len(entries)
    facts["transactions"] = len(transactions)
    for index, (entry, t) in enumerate(zip(entries, transactions)):
        timings = entry["timings"]
        total = sum(max(0, timings[k]) for k in ("blocked", "dns", "connect", "send", "wait", "receive"))
        if not math.isclose(total, entry["time"], abs_tol=0.0011):
            problems.append(f"entry {index}: time {entry['time']} != sum of timings {total}")
        phases = t["phases"]
        # HAR's time holds the wait in sonde's queue (blocked) and the phases.
        queue = t.get("queue") or 0
        if not math.isclose(timings["blocked"], queue if t.get("queue") is not None else -1, abs_tol=0.0011):
            problems.append(f"entry {index}: HAR blocked {timings['blocked']} != queue {t.get('queue')}")
        # libcurl's own queue time (8.6+) is informational: -1 in HAR when the report has none.
        libcurl_queue = t.get("libcurlQueue")
        if not math.isclose(entry["_libcurlQueue"], libcurl_queue if libcurl_queue is not None else -1, abs_tol=0.0011):
            problems.append(f"entry {index}: HAR _libcurlQueue {entry['_libcurlQueue']} != libcurlQueue {libcurl_queue}")
        fallback = t.get("http3Fallback")
        if entry.get("_http3Fallback") != (fallback["reason"] if fallback else None):
            problems.append(f"entry {index}: HAR _http3Fallback {entry.get('_http3Fallback')!r} != {fallback!r}")
        if phases["total"] is not None and t["response"] is not None and not math.isclose(entry["time"], queue + phases["total"], abs_tol=0.0021):
            problems.append(f"entry {index}: HAR time {entry['time']} != queue + phases.total {queue} + {phases['total']}")
        if t["isReusedConnection"] and (timings["connect"] != -1 or timings["dns"] != -1 or timings["ssl"] != -1):
            problems.append(f"entry {index}: reused connection with dns/connect/ssl {timings}")
        if phases["tls"] is not None and not math.isclose(timings["connect"], phases["connect"] + phases["tls"], abs_tol=0.0011):
            problems.append(f"entry {index}: HAR connect must include ssl: {timings} vs {phases}")
        if t["connectionID"] is not None and entry.get("connection") != str(t["connectionID"]):
            problems.append(f"entry {index}: connection {entry.get('connection')} != {t['connectionID']}")
        problems += sonde_members_problems(index, entry, t)
    facts["harReused"] = sum(1 for e in entries if e["_isReusedConnection"])
    facts["harNames"] = [e.get("_name") for e in entries]

    root = ElementTree.parse(f"{folder}/junit.xml").getroot()
    cases = root.findall(".//testcase")
    facts["junitCases"] = len(cases)
    facts["junitFailures"] = len(root.findall(".//testcase/failure"))
    facts["junitDeclaredTests"] = int(root.get("tests"))
    facts["junitDeclaredFailures"] = int(root.get("failures"))
    facts["junitNames"] = [c.get("name") for c in cases]
    facts["junitFailureMessages"] = [f.get("message") for f in root.findall(".//testcase/failure")]
    # The per-request cases (a suite named "requests", or sonde.request cases in a check's suite).
    facts["junitRequests"] = [
        {"name": c.get("name"), "time": float(c.get("time")), "failure": (c.find("failure").get("message") if c.find("failure") is not None else None),
         "out": c.findtext("system-out")}
        for c in cases if c.get("classname") == "sonde.request"]
    declared = sum(int(s.get("tests")) for s in root.findall("testsuite"))
    if declared != facts["junitDeclaredTests"] or len(cases) != declared:
        problems.append(f"junit: {len(cases)} cases, suites declare {declared}, the root {facts['junitDeclaredTests']}")
    declared_failures = sum(int(s.get("failures")) for s in root.findall("testsuite"))
    if declared_failures != facts["junitDeclaredFailures"] or facts["junitFailures"] != declared_failures:
        problems.append(f"junit: {facts['junitFailures']} failures, suites declare {declared_failures}, the root {facts['junitDeclaredFailures']}")

    if prom:
        sample = re.compile(r'^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="(\\.|[^"\\])*",?)*\})? '
                            r'([-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?|NaN|[+-]Inf)$')
        metrics = {}
        for number, line in enumerate(open(prom).read().splitlines(), 1):
            if line.startswith("# HELP ") or line.startswith("# TYPE "):
                continue
            if not sample.match(line):
                problems.append(f"prom line {number} is not a valid sample: {line!r}")
                continue
            metrics.setdefault(re.split(r"[{ ]", line, maxsplit=1)[0], []).append(line)
        facts["promMetrics"] = sorted(metrics)
        facts["promLines"] = {name: lines for name, lines in metrics.items()}

    print(json.dumps(facts))
    for problem in problems[:30]:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
