#!/usr/bin/env bash
# serve-series-soak.sh SONDE [MINUTES]: sonde serve with 5 checks every 10 s against the embedded
# loopback target, scraped every 5 s by a real Prometheus for MINUTES (default 10); prints
# count({__name__=~"sonde_.*"}) every 30 s after the first round, the series ever seen over the
# whole soak, and the runs done. serve is a well-behaved exporter when the count never changes and
# the series ever seen are the series now (docs/serve.md; the figures: docs/measurements.md).
# Everything listens on loopback, on ports the kernel picks; all of it is stopped at the end.
set -euo pipefail
sonde=$(realpath "$1"); minutes=${2:-10}
[[ $minutes =~ ^[0-9]+$ ]] && (( minutes >= 1 && minutes <= 120 )) || { echo "MINUTES: 1 to 120" >&2; exit 64; }
work=$(mktemp -d)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_for() { for _ in $(seq 1 300); do curl -fs -o /dev/null "$1" && return 0; sleep 0.1; done; echo "$2 did not start" >&2; exit 1; }

"$sonde" target --json --max-seconds $(( minutes * 60 + 300 )) --dir "$work/target" > "$work/target.json" 2>/dev/null &
pids+=($!)
for _ in $(seq 1 300); do [[ -s $work/target.json ]] && break; sleep 0.1; done
field() { python3 -c 'import json, sys; print(json.loads(open(sys.argv[1]).readline())[sys.argv[2]])' "$work/target.json" "$1"; }
http=$(field http); https=$(field https); ca=$(field caFile)

serve_port=$(free_port)
cat > "$work/sonde.yaml" <<EOF
listen: 127.0.0.1:$serve_port
vantage: soak
checks:
  - {name: small, kind: probe, urls: ["$http/bytes/100"], count: 2, every: 10s, thresholds: ["total.p95<10s"]}
  - {name: large, kind: probe, urls: ["$http/bytes/200000"], count: 2, every: 10s}
  - {name: tls, kind: probe, urls: ["$https/bytes/100"], cacert: "$ca", count: 2, every: 10s}
  - {name: slow, kind: probe, urls: ["$http/delay/50"], count: 2, every: 10s, thresholds: ["errors.rate<1%"]}
  - {name: two, kind: probe, urls: ["$http/bytes/10", "$http/bytes/20"], count: 1, every: 10s}
EOF
"$sonde" serve --config "$work/sonde.yaml" --output-dir "$work/runs" > "$work/serve.log" 2>&1 &
pids+=($!)
wait_for "http://127.0.0.1:$serve_port/-/healthy" "sonde serve"

prom_port=$(free_port)
cat > "$work/prometheus.yml" <<EOF
global: {scrape_interval: 5s, scrape_timeout: 4s}
scrape_configs:
  - job_name: sonde
    static_configs: [{targets: ["127.0.0.1:$serve_port"]}]
EOF
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
    --web.listen-address="127.0.0.1:$prom_port" > "$work/prometheus.log" 2>&1 &
pids+=($!)
wait_for "http://127.0.0.1:$prom_port/-/ready" "prometheus"

query() {
    promtool query instant -o json "http://127.0.0.1:$prom_port" "$1" |
        python3 -c 'import json, sys; v = json.load(sys.stdin); print(v[0]["value"][1] if v else "none")'
}
start=$(date +%s)
# The first round: every check has run once (at most 10 s and its random offset) and been scraped.
for _ in $(seq 1 60); do [[ $(query 'count(sonde_serve_last_run_timestamp_seconds)') == 5 ]] && break; sleep 1; done
sleep 6
round=$(date +%s)
echo "first round after $(( round - start )) s"
counts=()
while (( $(date +%s) - start < minutes * 60 )); do
    count=$(query 'count({__name__=~"sonde_.*"})')
    counts+=("$count")
    echo "t=$(( $(date +%s) - start )) s  count({__name__=~\"sonde_.*\"}) = $count"
    sleep 30
done
window=$(( $(date +%s) - round ))
# Every series stored since the first round (a run's id as a label would add one each run).
seen=$(promtool query series -o json --match='{__name__=~"sonde_.*"}' --start="$round" --end="$(date +%s)" "http://127.0.0.1:$prom_port" |
    python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')
runs=$(query 'sum(sonde_serve_runs_total)')
distinct=$(printf '%s\n' "${counts[@]}" | sort -u | wc -l)
echo "samples: ${#counts[@]}, distinct counts: $distinct (${counts[0]}..${counts[-1]}), series stored in the last ${window} s: $seen, runs: $runs"
[[ $distinct == 1 && $seen == "${counts[-1]}" ]] || { echo "serve's series changed during the soak" >&2; exit 1; }
