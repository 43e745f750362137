#!/usr/bin/env bash
# make dist-test: dist/'s artifacts on a fresh Debian 12 with no Swift and no development packages: a root file
# system made by mmdebstrap from the package mirror apt uses, entered with chroot (the host's loopback is
# shared, so nginx started here on 127.0.0.1 is its peer). Checks, each a line "ok: …" or the run fails:
#   the .deb: apt resolves its Depends; sonde version (bundled libcurl 8, HTTP/3); probes over http and https;
#     man sonde-probe; bash completion; setcap cap_net_raw+ep then, as an unprivileged user, probe --capture
#     captures and report.json names the bundled libcurl; lintian (no errors); systemd-analyze verify and security
#   the tarball, unpacked elsewhere in the same root: the same version, probes, man page and completion; with
#     setcap it says on stderr and in run.warnings why it left its bundled libcurl
#   the OCI archive: podman loads it and `podman run --network host IMAGE probe http://127.0.0.1:PORT/` passes
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
work=$here/.build/dist-test
deb=$(ls dist/sonde_*_amd64.deb | head -n 1)
tarball=$(ls dist/sonde-*-linux-x86_64.tar.gz | head -n 1)
image=$(ls dist/sonde-*-oci.tar 2>/dev/null | head -n 1 || true)
version=$(basename "$deb" | sed 's/^sonde_\(.*\)_amd64\.deb$/\1/')
root=$work/root
ok() { echo "ok: $*"; }
fail() { echo "dist-test: FAILED: $*" >&2; exit 1; }

unmount_all() {
  for point in "$root/sys" "$root/proc" "$root/dev/pts" "$root/dev"; do
    mountpoint -q "$point" 2>/dev/null && umount -l "$point"
  done
  return 0
}
cleanup() {
  [ -s "$work/nginx/nginx.pid" ] && kill "$(cat "$work/nginx/nginx.pid")" 2>/dev/null
  unmount_all
}
trap cleanup EXIT
unmount_all
rm -rf --one-file-system "$work"
mkdir -p "$work"

start=$SECONDS
mmdebstrap --quiet --variant=minbase --include=man-db,bash-completion,libcap2-bin,systemd,sudo bookworm "$root"
ok "fresh Debian 12 root file system in $((SECONDS - start)) s"
[ ! -e "$root/opt/swift" ] && ! chroot "$root" sh -c 'command -v swift' >/dev/null || fail "the root file system has Swift"
mount --bind /dev "$root/dev"; mount -t devpts devpts "$root/dev/pts" -o newinstance,ptmxmode=0666 2>/dev/null || true
mount -t proc proc "$root/proc"; mount -t sysfs sysfs "$root/sys"
cp /etc/resolv.conf "$root/etc/resolv.conf"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
as_user() { chroot --userspec=tester:tester "$root" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/tmp LANG=C.UTF-8 "$@"; }
in_root useradd --create-home tester

# The peer: nginx on the host's loopback (HTTP/1.1, and h2 over TLS with a certificate for 127.0.0.1).
ports=$(python3 -c 'import socket
s=[socket.socket() for _ in range(3)]
[x.bind(("127.0.0.1",0)) for x in s]
print(" ".join(str(x.getsockname()[1]) for x in s))')
read -r http https h2c <<<"$ports"
scripts/nginx-fixture.sh "$work/nginx" "$http" "$https" "$h2c"
cp "$work/nginx/cert.pem" "$root/tmp/peer-ca.pem"

# Checks one sonde (PREFIX/bin/sonde inside the root): version, probes, man page, completion.
check_sonde() {
  local sonde=$1 label=$2 man=$3
  in_root "$sonde" version > "$work/version.txt" || fail "$label: sonde version"
  grep -q '^libcurl 8\.' "$work/version.txt" || fail "$label: not on libcurl 8: $(head -n 2 "$work/version.txt")"
  grep -q '^  features: .*http3' "$work/version.txt" || fail "$label: no http3 feature"
  grep -q '^  bundled:  yes' "$work/version.txt" || fail "$label: not on its bundled libcurl: $(grep bundled "$work/version.txt")"
  ok "$label: sonde version: $(sed -n 2p "$work/version.txt"), http3, bundled"
  in_root "$sonde" probe "http://127.0.0.1:$http/1k.bin" "https://127.0.0.1:$https/1k.bin" --http2 --count 2 \
    --cacert /tmp/peer-ca.pem --output-dir /tmp/runs > "$work/probe.txt" 2> "$work/probe.err" \
    || fail "$label: sonde probe exited $?: $(cat "$work/probe.err")"
  [ ! -s "$work/probe.err" ] || fail "$label: sonde probe wrote to stderr: $(cat "$work/probe.err")"
  ok "$label: sonde probe over http/1.1 and h2 passes"
  in_root sh -c "$man" > "$work/man.txt" 2>&1 || fail "$label: $man: $(head -n 3 "$work/man.txt")"
  grep -q -- '--count' "$work/man.txt" || fail "$label: the sonde-probe man page lacks --count"
  ok "$label: $man"
  in_root bash -c '. /usr/share/bash-completion/bash_completion; . "$1"; COMP_WORDS=(sonde pro); COMP_CWORD=1; COMP_LINE="sonde pro"; COMP_POINT=9; _sonde sonde pro sonde; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$4" > "$work/completion.txt" 2>&1 || fail "$label: bash completion: $(cat "$work/completion.txt")"
  grep -qx 'probe' "$work/completion.txt" || fail "$label: bash completion of 'sonde pro' gave: $(tr '\n' ' ' < "$work/completion.txt")"
  ok "$label: bash completes 'sonde pro' to probe"
}

# README's Install section, word for word: the command of the table row whose first cell starts with $1.
readme_command() {
  python3 - "$1" README.md <<'PY'
import re, sys
label, readme = sys.argv[1], open(sys.argv[2]).read()
section = readme.split("## Install", 1)[1].split("\n## ", 1)[0]
for row in section.splitlines():
    cells = [cell.strip() for cell in row.strip().strip("|").split("|")]
    if len(cells) > 1 and cells[0].startswith(label):
        print(re.fullmatch(r"`(.*)`", cells[1]).group(1))
        break
else:
    sys.exit(f"README.md: no Install row for {label}")
PY
}

# 1. The .deb, installed by README's command (a person answering apt's question with y).
cp "$deb" "$root/tmp/"
command=$(readme_command ".deb")
case $command in *"$(basename "$deb")"*) ;; *) fail "README's .deb command names another file than $(basename "$deb"): $command";; esac
in_root apt-get update -qq
echo y | in_root sh -c "cd /tmp && $command" > "$work/apt.txt" 2>&1 || fail "README's '$command': $(tail -n 5 "$work/apt.txt")"
in_root dpkg-query -W -f='${Status}' sonde | grep -q "install ok installed" || fail "README's '$command' did not install sonde"
ok "README's '$command' resolved: $(in_root dpkg-query -W -f='${Depends}' sonde)"
check_sonde /usr/bin/sonde ".deb" "MANPAGER=cat man sonde-probe" /usr/share/bash-completion/completions/sonde
in_root systemctl --version >/dev/null 2>&1 || true
[ -f "$root/lib/systemd/system/sonde-serve.service" ] || fail ".deb: no sonde-serve.service"
[ ! -e "$root/etc/systemd/system/multi-user.target.wants/sonde-serve.service" ] || fail ".deb: installing enabled sonde-serve"
ok ".deb: sonde-serve.service installed, not enabled"

# File capabilities: the absolute RUNPATH keeps the bundled libcurl; an unprivileged user captures.
in_root setcap cap_net_raw+ep /usr/bin/sonde
as_user /usr/bin/sonde probe "http://127.0.0.1:$http/1k.bin" --count 2 --capture --output-dir /tmp/cap --json \
  > "$work/cap.json" 2> "$work/cap.err" || fail ".deb with setcap: probe --capture as tester exited $?: $(cat "$work/cap.err")"
python3 - "$work/cap.json" <<'PY' || fail ".deb with setcap: the report"
import json, sys
report = json.load(open(sys.argv[1]))
tool, run = report["tool"], report["run"]
assert tool["libcurl"].startswith("8."), tool["libcurl"]
assert tool["libcurlPath"].startswith("/usr/lib/sonde/"), tool["libcurlPath"]
assert not run.get("warnings"), run.get("warnings")
captures = report.get("captures") or []
assert captures and captures[0]["packets"] > 0, captures
print(f"ok: .deb with setcap cap_net_raw+ep, as an unprivileged user: {captures[0]['packets']} packets captured, libcurl {tool['libcurl']} at {tool['libcurlPath']}")
PY

# lintian on the host; systemd-analyze in the root (it reads the files; nothing is started).
lintian --fail-on error --suppress-tags-from-file /dev/null "$deb" > "$work/lintian.txt" 2>&1 \
  || fail "lintian: $(grep '^E:' "$work/lintian.txt" | head)"
ok "lintian: no errors ($(grep -c '^W:' "$work/lintian.txt" || true) warnings)"
in_root systemd-analyze verify /lib/systemd/system/sonde-serve.service > "$work/verify.txt" 2>&1 \
  || fail "systemd-analyze verify: $(cat "$work/verify.txt")"
ok "systemd-analyze verify sonde-serve.service (in the root, with the .deb installed)"
exposure=$(in_root systemd-analyze security --offline=yes /lib/systemd/system/sonde-serve.service 2>/dev/null \
           | sed -n 's/.*Overall exposure level for .*: \([0-9.]*\) \(.*\)/\1 \2/p')
[ -n "$exposure" ] || fail "systemd-analyze security gave no exposure level"
ok "systemd-analyze security: exposure $exposure"

# 2. The tarball, in another directory of the same root, unpacked by README's command.
mkdir -p "$root/opt/elsewhere"
cp "$tarball" "$root/opt/elsewhere/"
command=$(readme_command "tarball")
case $command in *"$(basename "$tarball")"*) ;; *) fail "README's tarball command names another file than $(basename "$tarball"): $command";; esac
in_root sh -c "cd /opt/elsewhere && $command" > "$work/tarball.txt" 2>&1 || fail "README's '$command': $(tail -n 5 "$work/tarball.txt")"
ok "README's '$command': $(sed -n 2p "$work/tarball.txt")"
dir=/opt/elsewhere/$(basename "$tarball" .tar.gz)
check_sonde "$dir/bin/sonde" "tarball" "MANPAGER=cat man -l $dir/share/man/man1/sonde-probe.1" "$dir/share/bash-completion/completions/sonde"
# With file capabilities the dynamic linker ignores $ORIGIN: with the system's libcurl present, sonde
# runs on it and says why on stderr and in run.warnings.
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libcurl4 > /dev/null 2>&1
in_root setcap cap_net_raw+ep "$dir/bin/sonde"
as_user "$dir/bin/sonde" probe "http://127.0.0.1:$http/1k.bin" --output-dir /tmp/capt --json > "$work/tcap.json" 2> "$work/tcap.err" \
  || fail "tarball with setcap: probe exited $?: $(cat "$work/tcap.err")"
grep -q 'ignores \$ORIGIN' "$work/tcap.err" || fail "tarball with setcap: no reason on stderr: $(cat "$work/tcap.err")"
python3 -c 'import json,sys; w=json.load(open(sys.argv[1]))["run"]["warnings"]; assert any("$ORIGIN" in x for x in w), w' "$work/tcap.json" \
  || fail "tarball with setcap: run.warnings lacks the reason"
ok "tarball with setcap: says why it runs on the system's libcurl ($(head -c 120 "$work/tcap.err")…)"

# 3. The OCI image.
if [ -z "$image" ]; then echo "dist-test: no OCI archive in dist/ (DIST_SKIP_IMAGE?)" >&2; exit 1; fi
conf=$work/containers.conf
printf '[containers]\ndefault_ulimits = []\n[engine]\ncgroup_manager = "cgroupfs"\n' > "$conf"
podman=(env CONTAINERS_CONF="$conf" podman --root "$work/storage" --runroot "$work/run" --storage-driver vfs)
loaded=$("${podman[@]}" load --quiet -i "$image" | sed -n 's/^Loaded image[^:]*: //p' | head -n 1)
[ -n "$loaded" ] || fail "podman load of $image"
"${podman[@]}" --runtime /usr/sbin/runc run --rm --network host "$loaded" probe "http://127.0.0.1:$http/1k.bin" --count 2 \
  > "$work/podman.txt" 2>&1 || fail "podman run IMAGE probe: $(tail -n 5 "$work/podman.txt")"
user=$("${podman[@]}" --runtime /usr/sbin/runc run --rm --network host --entrypoint /usr/bin/id "$loaded" -un)
[ "$user" = sonde ] || fail "the image runs as '$user', not sonde"
ok "OCI archive: podman run --network host $loaded probe passes, as user $user"
"${podman[@]}" rmi --all --force >/dev/null 2>&1 || true
echo "dist-test: all passed ($((SECONDS - start)) s)"
