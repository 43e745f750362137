# Provides the libcurl that sonde runs on, in DIR/lib (DIR defaults to .build/sonde-libcurl):
#   libcurl-330bcbb6.so…    pycurl's manylinux wheel's libcurl 8.x with its own OpenSSL, nghttp2,
#   libssl-….so.3 …         ngtcp2 and nghttp3 (HTTP/3), copied from the wheel; the wheel's libcurl
#                           finds its libraries beside itself (RPATH $ORIGIN), so they share the folder;
#   libcurl-sonde-real.so.4 -> the wheel's libcurl (a symlink: the libcurl sonde runs on);
#   libcurl.so.4 -> libcurl-sonde-versions.so, a version wrapper (no code that runs): SONAME
#                           libcurl.so.4, the symbol version names of the system's libcurl
#                           (CURL_OPENSSL_4) and DT_NEEDED libcurl-sonde-real.so.4. sonde is linked
#                           against Debian's libcurl, whose symbols carry CURL_OPENSSL_4; the wheel's
#                           libcurl has no symbol versions, and glibc then prints "no version
#                           information available" at every start. The wrapper answers the version
#                           check; the symbols themselves come from libcurl-sonde-real.so.4.
# sonde finds DIR/lib by RUNPATH and falls back to the system's libcurl.so.4 when it is absent;
# `sonde --libcurl PATH` reuses the wrapper for any other libcurl.
# The wheel is fetched once (pip, network) and then reused: a second run needs no network.
# SONDE_PYCURL_WHEEL=FILE.whl installs that wheel file instead (offline machines).
# When no wheel can be had, DIR/lib is left absent and sonde runs on the system's libcurl.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$here/.build/sonde-libcurl}
pycurl_version=7.49.0
if [ -e "$dir/lib/libcurl.so.4" ] && [ -e "$dir/lib/libcurl-sonde-real.so.4" ]; then exit 0; fi

# 2. The wheel's libcurl.
if [ -e "$dir/lib/libcurl.so.4" ]; then exit 0; fi
source=${SONDE_PYCURL_WHEEL:-pycurl==$pycurl_version}
rm -rf "$dir/wheel" "$dir/lib.tmp"
if ! PIP_ROOT_USER_ACTION=ignore python3 -m pip install -q --disable-pip-version-check --retries 1 --timeout 15 --no-deps --only-binary=:all: \
      --target "$dir/wheel" "$source" >&2; then
  echo "provide-libcurl: could not install the pycurl wheel ($source): sonde runs on the system's libcurl" >&2
  exit 0
fi
libs=$dir/wheel/pycurl.libs
curl_lib=$(ls "$libs"/libcurl-*.so* 2>/dev/null | head -n 1 || true)
if [ -z "$curl_lib" ]; then
  echo "provide-libcurl: the wheel carries no libcurl in pycurl.libs: sonde runs on the system's libcurl" >&2
  exit 0
fi
mkdir -p "$dir/lib.tmp"
cp -p "$libs"/* "$dir/lib.tmp/"
ln -s "$(basename "$curl_lib")" "$dir/lib.tmp/libcurl-sonde-real.so.4"

# The version wrapper, linked against an empty library named libcurl-sonde-real.so.4 (only its
# SONAME matters: it becomes the wrapper's DT_NEEDED).
system_curl=/usr/lib/x86_64-linux-gnu/libcurl.so.4
[ -e "$system_curl" ] || system_curl=$(ldconfig -p | awk '/libcurl\.so\.4 /{print $NF; exit}')
cc=/opt/swift/usr/bin/clang
[ -x "$cc" ] || cc=$(command -v clang || command -v cc)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
: > "$work/empty.c"
"$cc" -shared -fPIC -o "$work/libcurl-sonde-real.so.4" "$work/empty.c" -Wl,-soname,libcurl-sonde-real.so.4
: > "$work/versions.c"
: > "$work/versions.map"
n=0
for version in $(objdump -T "$system_curl" | awk '$NF ~ /^curl_/ { print $(NF-1) }' | tr -d '()' | sort -u); do
  n=$((n + 1))
  echo "void sonde_libcurl_version_$n(void) {}" >> "$work/versions.c"
  echo "$version { global: sonde_libcurl_version_$n; local: *; };" >> "$work/versions.map"
done
"$cc" -shared -fPIC -o "$dir/lib.tmp/libcurl-sonde-versions.so" "$work/versions.c" \
  -Wl,--version-script="$work/versions.map" -Wl,-soname,libcurl.so.4 -Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN' \
  -Wl,--no-as-needed "$work/libcurl-sonde-real.so.4"
ln -s libcurl-sonde-versions.so "$dir/lib.tmp/libcurl.so.4"
rm -rf "$dir/lib"
mv "$dir/lib.tmp" "$dir/lib"
echo "provide-libcurl: $dir/lib: libcurl.so.4 (version wrapper) -> libcurl-sonde-real.so.4 -> $(basename "$curl_lib") (pycurl $pycurl_version wheel)" >&2
