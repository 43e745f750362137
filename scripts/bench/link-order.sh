#!/usr/bin/env bash
# The functions start-up, a one-URL probe and serve run, for the linker's symbol ordering (issue 44, targets 1
# and 2): runs an unstripped release sonde under valgrind's callgrind (every function executed, not a sample)
# for `sonde version`, `sonde probe` of http and https URLs, and `sonde serve` (start, /metrics, 200 /probe http
# and tcp calls, two https probe checks a second, stop), then writes the names (as the linker sees them,
# mangled) of the functions in sonde's own binary, version's first, then the probe's, then serve's: one a line,
# for `ld.lld --symbol-ordering-file`, which places the sections holding them first, in that order.
# Usage: scripts/bench/link-order.sh SONDE OUT   (SONDE: with its symbol table, e.g. the release build's
# .build/release/sonde; its debug sections are stripped for valgrind, whose DWARF 5 reader gives up on them.)
# Loopback only; bounded (a few minutes: callgrind runs about 50 times slower).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
(( $# == 2 )) || { echo "usage: $0 SONDE OUT" >&2; exit 64; }
command -v valgrind >/dev/null || { echo "link-order: needs valgrind (apt-get install valgrind)" >&2; exit 64; }
sonde=$(realpath "$1"); out=$2
work=$(mktemp -d /tmp/sonde-link-order.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; kill "$(cat "$work/nginx/nginx.pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$work"' EXIT
# Beside the original, so that its RUNPATH ($ORIGIN/...) finds the same libcurl.
profiled=$(dirname "$sonde")/.sonde-link-order.$$
objcopy --strip-debug "$sonde" "$profiled"
trap 'rm -f "$profiled"; for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; kill "$(cat "$work/nginx/nginx.pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$work"' EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
http=$(port) https=$(port)
"$here/scripts/nginx-fixture.sh" "$work/nginx" "$http" "$https" "$(port)"
# grind NAME ARGS...: replaces the shell it runs in by valgrind (call it in a subshell or with &, so that $! is its pid).
grind() { local name=$1; shift; exec valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/$name.cg" "$profiled" "$@"; }

(grind version version) > /dev/null 2> "$work/version.log"
(grind probe probe --output-dir "$work/runs" --cacert "$work/nginx/cert.pem" \
  "http://127.0.0.1:$http/1k.bin" "https://localhost:$https/1k.bin") > /dev/null 2> "$work/probe.log" \
  || { echo "link-order: the probe failed:" >&2; tail -5 "$work/probe.log" >&2; exit 1; }
modules="  http_2xx: {prober: http, timeout: 30s, http: {preferred_ip_protocol: ip4}}
  tcp_connect: {prober: tcp, timeout: 30s, tcp: {preferred_ip_protocol: ip4}}"
printf 'allow: ["http://127.0.0.1:%s/*", "127.0.0.1:%s"]\nmodules:\n%s\nparallel: 2\nkeep: {days: 1}\n' "$http" "$http" "$modules" > "$work/serve.yml"
printf 'defaults: {every: 1s, cacert: "%s"}\nchecks:\n' "$work/nginx/cert.pem" >> "$work/serve.yml"
printf '  - {name: c%d, kind: probe, urls: ["https://localhost:%s/1k.bin"]}\n' 1 "$https" 2 "$https" >> "$work/serve.yml"
p=$(port)
grind serve serve --config "$work/serve.yml" --listen "127.0.0.1:$p" --output-dir "$work/serve-runs" > "$work/serve.log" 2>&1 &
serve=$!; pids+=("$serve")
for _ in $(seq 1 600); do curl -fs -o /dev/null "http://127.0.0.1:$p/metrics" && break; sleep 0.1; done
python3 - "$p" "$http" <<'PY'
import http.client, sys
port, target = int(sys.argv[1]), sys.argv[2]
c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
for i in range(100):
    for query in (f"target=http://127.0.0.1:{target}/1k.bin&module=http_2xx", f"target=127.0.0.1:{target}&module=tcp_connect"):
        c.request("GET", f"/probe?{query}")
        body = c.getresponse().read()
        assert b"probe_success 1" in body, body[:300]
c.request("GET", "/metrics"); c.getresponse().read()
PY
sleep 5
kill -TERM "$serve"
for _ in $(seq 1 600); do kill -0 "$serve" 2>/dev/null || break; sleep 0.1; done
wait "$serve" 2>/dev/null || true
kill -0 "$serve" 2>/dev/null && { echo "link-order: serve did not stop" >&2; exit 1; }

# callgrind's files name each object (ob=, cob=) and function (fn=, cfn=) once, then by number.
python3 - "$profiled" "$out" "$work/version.cg" "$work/probe.cg" "$work/serve.cg" <<'PY'
import re, sys
binary, out, files = sys.argv[1], sys.argv[2], sys.argv[3:]
order, seen = [], set()
for path in files:
    objects, names, ob, cob = {}, {}, None, None
    for line in open(path, errors="replace"):
        m = re.match(r"(c?ob|c?fn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if not m: continue
        kind, number, text = m.groups()
        if kind in ("ob", "cob"):
            if text is not None: objects[number] = text
            if kind == "ob": ob = objects.get(number)
            else: cob = objects.get(number)
            continue
        if text is not None: names[number] = text
        owner = ob if kind == "fn" else (cob or ob)
        name = re.sub(r"'\d+$", "", names.get(number) or "")  # callgrind's recursion depth suffix
        if kind == "cfn": cob = None
        if owner == binary and name and not name.startswith("0x") and name not in seen:
            seen.add(name); order.append(name)
    print(f"link-order: {path.rsplit('/', 1)[1]}: {len(order)} functions so far", file=sys.stderr)
open(out, "w").write("".join(n + "\n" for n in order))
PY
