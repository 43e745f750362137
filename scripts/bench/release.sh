#!/usr/bin/env bash
# Measures dist/'s artifacts against issue 40's targets (docs/performance.md, "Release"): the tarball's and
# the .deb's size, the .deb's installed size (its Installed-Size), and `sonde version` of the unpacked
# tarball against `curl --version`, ROUNDS interleaved rounds of 15 runs each (medians, and their ratio).
# What the binary is made of (ELF sections, and the ICU data Foundation brings) is printed as well.
# Usage: scripts/bench/release.sh [DIST]   (after make dist; ROUNDS=5 by default)
set -euo pipefail
dist=$(realpath "${1:-dist}")
rounds=${ROUNDS:-5}
tarball=$(ls "$dist"/sonde-*-linux-x86_64.tar.gz | head -n 1)
deb=$(ls "$dist"/sonde_*_amd64.deb | head -n 1)
work=$(mktemp -d /tmp/sonde-release-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
tar -xzf "$tarball" -C "$work"
sonde=$(ls -d "$work"/sonde-*/bin/sonde)
mib() { python3 -c "import sys; print(f'{int(sys.argv[1]) / 1048576:.1f} MiB ({int(sys.argv[1]) / 1e6:.1f} MB)')" "$1"; }
echo "tarball:        $(mib "$(stat -c %s "$tarball")")  $(basename "$tarball")"
echo ".deb:           $(mib "$(stat -c %s "$deb")")  $(basename "$deb")"
echo ".deb installed: $(mib $(( $(dpkg-deb -f "$deb" Installed-Size) * 1024 )))  (Installed-Size)"
echo "bin/sonde:      $(mib "$(stat -c %s "$sonde")"), lib/sonde: $(mib "$(du -sb "$(dirname "$sonde")/../lib/sonde" | cut -f1)")"
size -A "$sonde" | awk 'NR > 2 && $2 > 1000000 {printf "  section %-16s %s\n", $1, $2}'
python3 - "$sonde" "$rounds" <<'PY'
import statistics, subprocess, sys, time
sonde, rounds = sys.argv[1], int(sys.argv[2])
def one(command):
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - start) * 1000
medians = {"sonde": [], "curl": []}
for _ in range(rounds):
    for name, command in (("sonde", [sonde, "version"]), ("curl", ["curl", "--version"])):
        one(command)  # warm the page cache
        medians[name].append(statistics.median(one(command) for _ in range(15)))
    # interleaved: the other one next round first
    medians = dict(reversed(list(medians.items())))
s, c = statistics.median(medians["sonde"]), statistics.median(medians["curl"])
print(f"sonde version: {s:.1f} ms, curl --version: {c:.1f} ms (medians of {rounds} rounds of 15), ratio {s / c:.2f}")
PY
uptime
