"""Splits a `perf record -g` profile of one `sonde probe` run into the steps of a transaction, in
µs of CPU per request, for docs/measurements.md's budget.

Usage: perf script -i perf.data -F comm,tid,period,ip,sym,dso | swift-demangle --simplified | perf-budget.py REQUESTS
Each sample's period (ns of cpu-clock) goes to one step: the first rule below, in order, whose
pattern occurs in any frame of the sample's stack (so a step is inclusive of what it calls, less
the steps listed before it). Samples from threads other than sonde's engine and recorder count as
start-up and final rendering. Prints one line per (thread, step): µs per request and share.
"""
import collections
import re
import sys

# (thread, step, frame pattern); first match wins, so specific steps come before their callers.
RULES = [
    ("engine", "curl_url parse per hop (URLParts, Alt-Svc reuse rule)", r"URLParts\.init"),
    ("engine", "Alt-Svc bookkeeping (AltSvcCache)", r"AltSvcCache\.|keepsOpenConnection"),
    ("engine", "origin gate (OriginGate)", r"OriginGate\.|gateOrigin"),
    ("engine", "hand-off to the recorder (RecorderThread.submit)", r"RecorderThread\.submit"),
    ("engine", "building the transaction (makeTransaction: getinfo, strings, metrics)", r"ProbeRunner\.makeTransaction"),
    ("engine", "finishing the task (finishHop rest, ActiveTask.finished, deliver)",
     r"ProbeRunner\.finishHop|ActiveTask\.finished|withCertificates|deliver #\\d+ "),
    ("engine", "response header callback (header strings)", r"easyHeaderCallback|didReceiveHeader"),
    ("engine", "body callback", r"easyWriteCallback|didReceiveBody"),
    ("engine", "starting the hop (setopts, ActiveTask)", r"ProbeRunner\.startHop|startNext|ActiveTask\.init"),
    ("engine", "per-task closure (ProbeCheckRunner onTask: stamping, terminal view)", r"closure #\d+ in closure #2 in ProbeCheckRunner\.run"),
    ("engine", "waiting for the network (curl_multi_poll)", r"curl_multi_poll"),
    ("engine", "libcurl + kernel for the transfer (curl_multi_perform)", r"curl_multi_perform"),
    ("engine", "multi add/remove, info_read", r"curl_multi_add_handle|curl_multi_remove_handle|curl_multi_info_read"),
    ("engine", "engine loop, rest", r"."),
    ("recorder", "journal write (Journal.append: the line into its buffer, write(2))", r"Journal\."),
    ("recorder", "journal line (encode ProbeTask JSON)", r"RunRecorder\.appendLine|FieldModel\.writeJSON"),
    ("recorder", "aggregation (ProbeSummaryBuilder, histograms)", r"ProbeSummaryBuilder\.|Histogram\.|LatencyDistribution\.|CheckBuilder\."),
    ("recorder", "HAR entry (HARWriter)", r"HARWriter\."),
    ("recorder", "JUnit test case (JUnitWriter)", r"JUnitWriter\."),
    ("recorder", "report.json copy + spill writes (ReportWriter.add rest)", r"ReportWriter\.add"),
    ("recorder", "HTML sample (TaskSampler)", r"TaskSampler\."),
    ("recorder", "freeing the task (release/dealloc)", r"swift_release|swift_arrayDestroy|outlined destroy|destroy"),
    ("recorder", "queue, locks, wake-ups (RecorderThread.consume)", r"."),
    ("other", "report.json's tasks copied from the journal (ReportWriter.copyTaskJSON)", r"ReportWriter\.copyTaskJSON"),
    ("other", "final reports (RunRecorder.finish)", r"RunRecorder\.finish|ReportWriter\.finish|ReportFiles\."),
    ("other", "start-up, argument parsing, rest", r"."),
]
COMPILED = [(thread, step, re.compile(pattern)) for thread, step, pattern in RULES]


def thread_of(comm):
    if comm == "sonde-engine":
        return "engine"
    if comm == "sonde-recorder":
        return "recorder"
    return "other"


def main():
    if len(sys.argv) != 2 or not sys.argv[1].isdigit() or int(sys.argv[1]) <= 0:
        sys.exit("usage: perf script -F comm,tid,period,ip,sym,dso | swift-demangle --simplified | perf-budget.py REQUESTS")
    requests = int(sys.argv[1])
    totals = collections.Counter()
    comm, period, frames = None, 0, []

    def flush():
        if comm is None:
            return
        thread = thread_of(comm)
        for rule_thread, step, pattern in COMPILED:
            if rule_thread == thread and any(pattern.search(frame) for frame in frames):
                totals[(thread, step)] += period
                return

    for line in sys.stdin:
        if not line.strip():
            continue
        if not line[0].isspace():
            flush()
            # "comm tid period" (comm may contain spaces: take the last two fields as numbers)
            parts = line.split()
            comm, period, frames = " ".join(parts[:-2]), int(parts[-1]), []
        else:
            frames.append(line.strip())
    flush()
    whole = sum(totals.values())
    order = {(thread, step): index for index, (thread, step, _) in enumerate(RULES)}
    print(f"{'thread':9} {'µs/req':>7} {'share':>6}  step")
    for key in sorted(totals, key=lambda k: order[k]):
        ns = totals[key]
        print(f"{key[0]:9} {ns / 1000 / requests:7.2f} {100 * ns / whole:5.1f}%  {key[1]}")
    for thread in ("engine", "recorder", "other"):
        ns = sum(v for k, v in totals.items() if k[0] == thread)
        print(f"{thread:9} {ns / 1000 / requests:7.2f} {100 * ns / whole:5.1f}%  (thread total)")
    print(f"{'all':9} {whole / 1000 / requests:7.2f} 100.0%  (sampled CPU per request)")


main()
