#!/usr/bin/env bash
# make dist: sonde's release artifacts in dist/, from the source tree (docs/install.md says what each holds):
#   sonde-VERSION-linux-x86_64.tar.gz   relocatable: bin/sonde, lib/sonde/ (the libcurl 8 it runs on), man pages,
#                                        completions, README (what the system must still have)
#   sonde_VERSION_amd64.deb             /usr/bin/sonde with RUNPATH /usr/lib/sonde (absolute: kept under file
#                                        capabilities), man pages, completions, /etc/sonde/sonde.yaml, sonde-serve.service
#   sonde-VERSION-oci.tar               an OCI image archive: Debian 12 (mmdebstrap) with the .deb, user sonde, entrypoint sonde
# The build: release, the Swift runtime and Foundation linked statically, stripped.
# DIST_SKIP_IMAGE=1 leaves the image out (it needs the Debian mirror).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
export PATH=/opt/swift/usr/bin:$PATH
dist=$here/dist
work=$here/.build/dist
arch=amd64
triple_arch=x86_64
say() { echo "dist: $*" >&2; }

# 1. The release build. SONDE_INSTALL_BUILD=1: RUNPATH $ORIGIN/../lib/sonde alone (Package.swift).
# DIST_SCRATCH_PATH: a build folder of its own (CI builds the release beside the tests' debug build, and
# SwiftPM locks a build folder for the whole of a build or a test run); .build by default, shared with make install.
start=$SECONDS
scratch=(--scratch-path "${DIST_SCRATCH_PATH:-.build}")
SONDE_INSTALL_BUILD=1 swift build -c release --static-swift-stdlib "${scratch[@]}"
binary=$(SONDE_INSTALL_BUILD=1 swift build -c release --static-swift-stdlib "${scratch[@]}" --show-bin-path)/sonde
say "release build: $((SECONDS - start)) s"
[ -d .build/sonde-libcurl/lib ] || { echo "dist: .build/sonde-libcurl/lib is missing (make provide-libcurl)" >&2; exit 1; }

rm -rf "$work" && mkdir -p "$work" "$dist"
stage=$work/stage
mkdir -p "$stage/bin" "$stage/lib/sonde"
cp "$binary" "$stage/bin/sonde"
strip --strip-all "$stage/bin/sonde"
cp -P .build/sonde-libcurl/lib/* "$stage/lib/sonde/"
find "$stage/lib/sonde" -type f -exec chmod 644 {} +
strip --strip-unneeded "$stage"/lib/sonde/*.so* 2>/dev/null || true
version=$("$stage/bin/sonde" version --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["version"])')
[[ "$version" =~ ^[0-9][0-9A-Za-z.+~-]*$ ]] || { echo "dist: unexpected version '$version'" >&2; exit 1; }
facts=$("$stage/bin/sonde" version)
grep -q '^  bundled:  yes' <<<"$facts" || { echo "dist: the staged sonde does not run on its bundled libcurl:" >&2; echo "$facts" >&2; exit 1; }

# 2. Man pages, from the command definitions (swift-argument-parser's generate-manual over
#    `sonde --experimental-dump-help`), and the completion scripts sonde writes itself.
parser=${DIST_SCRATCH_PATH:-.build}/checkouts/swift-argument-parser
swift build --package-path "$parser" --scratch-path .build/argument-parser-tools --product generate-manual -c release >&2
manual=$(swift build --package-path "$parser" --scratch-path .build/argument-parser-tools -c release --show-bin-path)/generate-manual
mkdir -p "$stage/share/man/man1"
date=$(git log -1 --format=%cs 2>/dev/null || date -u +%F)
"$manual" "$stage/bin/sonde" --multi-page --date "$date" --authors 'the sonde developers' --output-directory "$stage/share/man/man1"
# git's naming (man sonde-probe), and no page for a hidden command or the help command.
"$stage/bin/sonde" --experimental-dump-help | python3 scripts/dist-man-names.py "$stage/share/man/man1"
ls "$stage/share/man/man1"/sonde-probe.1 >/dev/null
mkdir -p "$stage/share/bash-completion/completions" "$stage/share/zsh/vendor-completions" "$stage/share/fish/vendor_completions.d"
"$stage/bin/sonde" --generate-completion-script bash > "$stage/share/bash-completion/completions/sonde"
"$stage/bin/sonde" --generate-completion-script zsh > "$stage/share/zsh/vendor-completions/_sonde"
"$stage/bin/sonde" --generate-completion-script fish > "$stage/share/fish/vendor_completions.d/sonde.fish"

# 3. The tarball: the stage under sonde-VERSION/, with its README.
name=sonde-$version-linux-$triple_arch
rm -rf "${work:?}/$name" && cp -a "$stage" "$work/$name"
# What the system must still have: the newest glibc symbol version used (and 2.36 for packed relative
# relocations, DT_RELR: a version need, GLIBC_ABI_DT_RELR, that no symbol carries), and the libraries the binary and
# the bundled ones need that are neither bundled nor part of glibc, libstdc++ or libgcc_s, with their packages.
glibc=$( { objdump -T "$stage/bin/sonde" "$stage"/lib/sonde/*.so* 2>/dev/null | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//'
           readelf -V "$stage/bin/sonde" | awk '/Name: GLIBC_ABI_DT_RELR/ {relr = 1} END {if (relr) print "2.36"}'; } | sort -V | tail -n 1)
rows=""; packages=""
for library in $(readelf -d "$stage/bin/sonde" "$stage"/lib/sonde/*.so* 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort -u); do
  [ -e "$stage/lib/sonde/$library" ] && continue
  case $library in libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|libresolv.so*|libutil.so*|ld-linux*|libstdc++.so*|libgcc_s.so*) continue;; esac
  # (awk reads to the end: a reader that leaves early would kill the writer with SIGPIPE, which pipefail makes fatal.)
  path=$(ldconfig -p | awk -v l="$library" '!found && $1 == l && /x86-64/ {print $NF; found = 1}')
  package=$( (dpkg -S "$path" 2>/dev/null || dpkg -S "$(realpath "$path")" 2>/dev/null || true) | awk -F: 'NR == 1 {print $1}')
  rows+="| $library | ${package:-?} | |"$'\n'
  packages+="${package:+$package }"
done
python3 - "$work/$name/README.md" "$version" "$glibc" "$rows" "$packages" <<'PY'
import sys
out, version, glibc, rows, packages = sys.argv[1:]
text = open("packaging/README.tarball.md").read()
uses = {"libpcap": "packet capture", "libsqlite3": "the run history", "libre2": "regular expressions (serve's probers)",
        "libz": "compression"}
lines = []
for row in rows.strip().splitlines():
    cells = row.split("|")
    lib = cells[1].strip()
    use = next((v for k, v in uses.items() if lib.startswith(k)), "")
    lines.append(f"| {lib} | {cells[2].strip()} | {use} |")
text = (text.replace("@VERSION@", version).replace("@GLIBC@", glibc).replace("@LIBRARIES@", "\n".join(lines))
        .replace("@PACKAGES@", " ".join(sorted(set(packages.split())))))
open(out, "w").write(text)
PY
cp packaging/sonde.yaml "$work/$name/share/sonde.yaml.example" 2>/dev/null || true
mkdir -p "$work/$name/share/systemd" && cp packaging/sonde-serve.service "$work/$name/share/systemd/"
tar -C "$work" --owner=0 --group=0 --sort=name -cf - "$name" | gzip -9n > "$dist/$name.tar.gz"
say "$dist/$name.tar.gz: $(du -h "$dist/$name.tar.gz" | cut -f1)"

# 4. The .deb.
root=$work/deb
mkdir -p "$root/DEBIAN" "$root/usr/bin" "$root/usr/lib/sonde" "$root/usr/share/man/man1" "$root/usr/share/doc/sonde" \
         "$root/etc/sonde" "$root/lib/systemd/system"
cp "$stage/bin/sonde" "$root/usr/bin/sonde"
patchelf --set-rpath /usr/lib/sonde "$root/usr/bin/sonde"
cp -P "$stage"/lib/sonde/* "$root/usr/lib/sonde/"
find "$root/usr/lib/sonde" -type f -exec chmod 644 {} +
for page in "$stage"/share/man/man1/*.1; do gzip -9n < "$page" > "$root/usr/share/man/man1/$(basename "$page").gz"; done
cp -a "$stage/share/bash-completion" "$stage/share/zsh" "$stage/share/fish" "$root/usr/share/"
sed -i '1{/^#!/d}' "$root/usr/share/bash-completion/completions/sonde"   # sourced, never run
install -D -m 644 packaging/deb/lintian-overrides "$root/usr/share/lintian/overrides/sonde"
install -m 644 packaging/sonde.yaml "$root/etc/sonde/sonde.yaml"
install -m 644 packaging/sonde-serve.service "$root/lib/systemd/system/sonde-serve.service"
install -m 644 packaging/deb/copyright "$root/usr/share/doc/sonde/copyright"
sed "s/@VERSION@/$version/g; s/@DATE@/$(date -u -R -d "$date")/" packaging/deb/changelog | gzip -9n > "$root/usr/share/doc/sonde/changelog.gz"
echo /etc/sonde/sonde.yaml > "$root/DEBIAN/conffiles"
# Depends: from the libraries the binary and the bundled libcurl need (dpkg-shlibdeps), less those bundled.
shlibs=$work/shlibs
mkdir -p "$shlibs/debian"
printf 'Source: sonde\n\nPackage: sonde\nArchitecture: %s\n' "$arch" > "$shlibs/debian/control"
depends=$(cd "$shlibs" && dpkg-shlibdeps -O -l"$root/usr/lib/sonde" --ignore-missing-info \
            "$root/usr/bin/sonde" $(find "$root/usr/lib/sonde" -type f -name '*.so*') 2>/dev/null \
          | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "dist: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
depends="$depends, procps"   # /bin/kill: sonde-serve.service's ExecReload
installed=$(du -k -s --exclude=DEBIAN "$root" | cut -f1)
sed "s/@VERSION@/$version/; s/@ARCH@/$arch/; s/@DEPENDS@/$depends/; s/@SIZE@/$installed/" packaging/deb/control > "$root/DEBIAN/control"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -print | sed 's|^\./||' | sort | xargs md5sum > DEBIAN/md5sums)
find "$root" -type d -exec chmod 755 {} +
deb=$dist/sonde_${version}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
say "$deb: $(du -h "$deb" | cut -f1), installed $((installed / 1024)) MiB; Depends: $depends"

# 5. The OCI image: a Debian 12 root file system from the package mirror with the .deb installed,
#    a user sonde (uid 10001), imported and saved by podman.
if [ "${DIST_SKIP_IMAGE:-0}" = 1 ]; then say "image skipped (DIST_SKIP_IMAGE=1)"; exit 0; fi
scripts/dist-image.sh "$deb" "$version" "$dist/sonde-$version-oci.tar"
