#!/usr/bin/env bash
# Checks that two sonde builds write the same report files for the same journal, and that each
# build's live files (written while the run records) are what `sonde report` rebuilds from its
# journal: runs of 1, 7, 300 and 20,000 tasks against the nginx fixture, HTTP/1.1 and h2 (TLS),
# with redirects (two transactions a task), 404s and refused connections among them.
# Usage: scripts/bench/report-identity.sh BEFORE AFTER   (prints one line per run and file; exit 1 on a difference)
# Loopback only; each run bounded by its count (the refused port answers at once).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
[[ $# -eq 2 ]] || { echo "usage: $0 BEFORE AFTER" >&2; exit 64; }
before=$1 after=$2
work=$(mktemp -d /tmp/sonde-identity.XXXXXX)
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
http=$(port); https=$(port); h2c=$(port); closed=$(port)
"$here/scripts/nginx-fixture.sh" "$work/nginx" "$http" "$https" "$h2c"
trap 'kill "$(cat "$work/nginx/nginx.pid")" 2>/dev/null || true; rm -rf "$work"' EXIT
files=(report.json report.har junit.xml report.html run.prom)
differences=0
same() {  # same LABEL DIR_A DIR_B: compares every report file of two run folders
  local label=$1 a=$2 b=$3 file
  for file in "${files[@]}"; do
    if cmp -s "$a/$file" "$b/$file"; then
      echo "same      $label $file ($(stat -c %s "$a/$file") bytes)"
    else
      echo "DIFFERENT $label $file"; differences=$((differences + 1))
    fi
  done
}
# name, count per URL, parallel, protocol options, URLs (tasks = count x URLs)
runs=(
  "1|1|1|--http1.1|http://127.0.0.1:$http/1k.bin"
  "7|1|1|--http1.1|http://127.0.0.1:$http/1k.bin http://127.0.0.1:$http/redirect http://127.0.0.1:$http/missing-status http://127.0.0.1:$closed/ http://127.0.0.1:$http/1k.bin?a=1 http://127.0.0.1:$http/redirect?b=2 http://127.0.0.1:$http/missing-status?c=3"
  "300-h2|75|8|--insecure --http2|https://127.0.0.1:$https/1k.bin https://127.0.0.1:$https/redirect https://127.0.0.1:$https/missing-status https://127.0.0.1:$closed/"
  "20000|5000|32|--http1.1|http://127.0.0.1:$http/1k.bin http://127.0.0.1:$http/redirect http://127.0.0.1:$http/missing-status http://127.0.0.1:$closed/"
  "20000-h2|5000|32|--insecure --http2|https://127.0.0.1:$https/1k.bin https://127.0.0.1:$https/redirect https://127.0.0.1:$https/missing-status https://127.0.0.1:$closed/"
)
for spec in "${runs[@]}"; do
  IFS='|' read -r name count parallel options urls <<<"$spec"
  for build in before after; do
    binary=${!build}
    out="$work/$name.$build"
    # shellcheck disable=SC2086  # options and URLs are word lists
    "$binary" probe --client plain $options --parallel "$parallel" --count "$count" --output-dir "$out" \
      --prom "$out/run.prom" $urls >/dev/null 2>&1 || true
    folder=$(find "$out" -mindepth 1 -maxdepth 1 -type d | head -1)
    mv "$out/run.prom" "$folder/run.prom"
    echo "$name $build: $(grep -c '"type":"probe"' "$folder/journal.jsonl") tasks journalled"
    # Its own rebuild, from a copy of the journal alone.
    mkdir "$out/rebuilt" && cp "$folder/journal.jsonl" "$out/rebuilt/"
    "$binary" report --force "$out/rebuilt" --prom "$out/rebuilt/run.prom" >/dev/null 2>&1 || true
    same "$name $build live = its rebuild:" "$folder" "$out/rebuilt"
  done
  # The after run's journal rendered by both builds.
  folder=$(find "$work/$name.after" -mindepth 1 -maxdepth 1 -type d ! -name rebuilt | head -1)
  mkdir "$work/$name.by-before"
  cp "$folder/journal.jsonl" "$work/$name.by-before/"
  "$before" report --force "$work/$name.by-before" --prom "$work/$name.by-before/run.prom" >/dev/null 2>&1 || true
  same "$name after's journal, before = after:" "$work/$name.by-before" "$work/$name.after/rebuilt"
done
echo "differences: $differences"
[[ $differences -eq 0 ]]
