#!/usr/bin/env python3
"""startup-phases.py SCRIPT SYMS RUNS [HZ]: the CPU samples of `perf script -F comm,tid,ip,sym,dso` (call chains,
`perf record -g`) of RUNS runs of one command, by phase: each sample goes to the first rule (in the list's order)
whose pattern matches its whole stack. SYMS is `nm -C --defined-only SONDE | sort` (perf does not read the symbols
of a 200 MB binary). Used by scripts/bench/startup-profile.sh."""
import bisect, collections, re, sys
script, symfile, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
freq = float(sys.argv[4]) if len(sys.argv) > 4 else 20000
syms = []
for l in open(symfile):
    p = l.split(' ', 2)
    if len(p) == 3:
        try: syms.append((int(p[0], 16), p[2].strip()))
        except ValueError: pass
syms.sort(); addrs = [s[0] for s in syms]
def name(a):
    i = bisect.bisect_right(addrs, a) - 1
    return syms[i][1] if i >= 0 else '?'
samples, cur = [], None
for line in open(script):
    if not line.strip():
        if cur: samples.append(cur)
        cur = None; continue
    if line[0] not in ' \t':
        cur = (line.split()[0], []); continue
    m = re.match(r'\s*([0-9a-f]+) (.*) \((.*)\)$', line.rstrip())
    if m and cur is not None:
        ip, sym, dso = int(m.group(1), 16), m.group(2), m.group(3)
        if dso.endswith('/sonde'): sym = name(ip)
        cur[1].append((sym, dso.split('/')[-1]))
if cur: samples.append(cur)
samples = [s for s in samples if s[0] not in ('sh', 'perf-exec', 'seq')]
# (phase, pattern over the whole stack text); checked in order
rules = [
    ('exec + dynamic loader (relocations, symbol lookup, mapping 41 objects)', r'execve|_dl_start|dl_main|_dl_relocate|_dl_map_object|do_lookup_x|_dl_lookup_symbol|_dl_fixup|_dl_runtime_resolve|_dl_init|_dl_catch'),
    ('process exit (atexit, unmapping)', r'__run_exit_handlers|_dl_fini|do_exit|exit_mmap|__libc_start_call_main.*exit'),
    ('Swift runtime start (backtracer setup, /proc/self/maps)', r'swift::runtime::backtrace|_swift_backtrace|swift_backtrace|__vfscanf|initializeBacktrac'),
    ('report.html (HTMLReportRenderer)', r'HTMLReportRenderer'),
    ('report.json (ReportJSONWriter)', r'ReportJSONWriter'),
    ('junit.xml (JUnitWriter)', r'JUnitWriter'),
    ('report.har (HARWriter)', r'HARWriter'),
    ('latest link, history', r'LatestRunLink|HistoryStore'),
    ('other report finishing (ReportWriter.finish: files, renames)', r'ReportWriter.*finish|AtomicFile'),
    ('summary, thresholds, judgement (RunJudgement, ProbeSummary)', r'RunJudgement|ProbeSummaryBuilder|LatencyDistribution|Histogram'),
    ('terminal view (TerminalRenderer, printReportPaths)', r'TerminalRenderer|printReportPaths|SuitePrinter|StatusLines'),
    ('journal + recorder thread (RunRecorder, JSON lines)', r'RunRecorder|RecorderThread|Journal|JSONOutput'),
    ('run folder + lifecycle open (RunLifecycle.open, tool info)', r'RunLifecycle.*open|RunFolder|openRecorder|toolInfo|LibcurlProvenance'),
    ('libcurl global init (OpenSSL init)', r'curl_global_init|OPENSSL_init|ossl_init|OSSL_PROVIDER|CONF_modules'),
    ('the transfer (libcurl easy/multi, engine)', r'curl_multi|curl_easy|Curl_|ProbeEngine|Worker|libcurl'),
    ('argument parsing (swift-argument-parser, incl. its Mirror and conformance scans)', r'ArgumentParser.*(Parser|Mirror|ArgumentSet|Tree|commandStack|Decoder|Split|Set)|PositionalRuns|LibcurlSelection|Mirror'),
    ('conformance scans (other callers)', r'conformsToProtocol'),
    ('Swift metadata / generic instantiation', r'swift_getGenericMetadata|swift_getTypeByMangled|swift_getWitnessTable|swift_instantiate|swift_getSingleton|swift_once|swift_getCanonical'),
    ('OpenSSL (other)', r'libcrypto|libssl'),
    ('Foundation/dispatch start (threads, ProcessInfo, locale)', r'Foundation|dispatch|libdispatch|swift_task|swift_job|_swift_concurrency'),
    ('kernel: page faults (other)', r'exc_page_fault|handle_mm_fault'),
    ('kernel: syscalls (other)', r'entry_SYSCALL|do_syscall'),
]
counts = collections.Counter()
for comm, frames in samples:
    text = ' '.join(f'{s} {d}' for s, d in frames)
    for phase, pattern in rules:
        if re.search(pattern, text):
            counts[phase] += 1; break
    else:
        counts['other'] += 1
total = len(samples)
per_run = total / runs / freq * 1000
print(f'{total} samples at {freq:.0f} Hz over {runs} runs: {per_run:.1f} ms of CPU per run (sampled)')
for phase, n in counts.most_common():
    print(f'  {100 * n / total:5.1f} %  {n / runs / freq * 1000:5.2f} ms  {phase}')
