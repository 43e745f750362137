#!/usr/bin/env bash
# The `sonde audit` corpus: one nginx on loopback with a server per configuration, each with one
# deliberate flaw, all under their own CA (root -> intermediate -> leaf).
# Usage: audit-corpus.sh DIR PORT_BASE
#   Configuration i (in the order of CONFIGS below, from 0) listens on 127.0.0.1:PORT_BASE+i.
#   The ipv6-* servers also listen on [::1]:PORT_BASE+i (ipv6-broken does not: that is its flaw).
# Writes DIR/ca/root.pem (the CA to trust: --cacert), DIR/corpus.tsv (name, port, flaw, group, URL
# to audit, and the `HOST:PORT:ADDRESS,…` resolve entry the URL's name needs, or nothing) and
# DIR/nginx.pid. Stop it with: kill -QUIT "$(cat DIR/nginx.pid)".
#
# The names under audit.test (RFC 6761's reserved .test) exist only through the resolve entries
# (`sonde audit --resolve`, AuditOptions.resolve, libcurl's CURLOPT_RESOLVE): this machine's
# /etc/hosts gives localhost no ::1, so a name with an AAAA on loopback needs one.
#
# Four groups: "tls" (a TLS or certificate flaw each; the oracles testssl.sh and sslscan run on
# them), "http" (the clean certificate and TLS, one HTTP flaw each, audited at /data.json, a
# 6.7 KB JSON body; http-cleartext and http-redirect listen without TLS), "chain" (a flaw in the
# certificates beyond the leaf, or a leaf key ATS does not list; curl and openssl s_client are
# their oracles) and "redirect" (a redirect through a host the certificate does not name; curl -L's).
# The resolve column may hold several entries, separated by spaces.
#
# Debian's nginx runs on the system OpenSSL 3, whose default security level (Debian: 2) refuses
# to load a 1024-bit RSA key or a SHA-1 signed certificate and to speak TLS 1.0/1.1: those
# servers say `@SECLEVEL=0` in ssl_ciphers. scripts/audit-corpus-check.sh checks with
# `openssl s_client` that each flaw is really served.
set -euo pipefail
dir=$1 base=$2
[[ $base =~ ^[0-9]+$ ]] && (( base >= 1024 && base <= 65000 )) || { echo "PORT_BASE must be 1024..65000" >&2; exit 64; }
mkdir -p "$dir/ca" "$dir/www" "$dir/tmp"
cd "$dir"
ca=$dir/ca

# name|flaw (what must be found)
CONFIGS=(
  "clean|none"
  "tls10|tls.min-version (TLS 1.0 and 1.1 only)"
  "no-fs|tls.forward-secrecy (RSA key exchange only, TLS 1.2)"
  "rsa1024|cert.key-size (RSA 1024)"
  "sha1|cert.signature (SHA-1 signature)"
  "cn-only|cert.san (no subjectAltName, CN only)"
  "long-validity|cert.validity (825 days)"
  "missing-intermediate|cert.chain (intermediate not served)"
  "hsts-off|hsts (no Strict-Transport-Security, no stapling)"
  "hsts-short|hsts (max-age=300: too short)"
  "http-clean|none (h2, gzip with Vary, ETag and Last-Modified, keep-alive)"
  "http-gzip-off|http.compression (gzip off)"
  "http-no-vary|http.compression (gzip without Vary: Accept-Encoding)"
  "http-no-validator|http.caching (no ETag, no Last-Modified, no Cache-Control)"
  "http-no-304|http.caching (Last-Modified, but a conditional request gets 200)"
  "http-close|http.keep-alive (keepalive_timeout 0: Connection: close, HTTP/1.1 only)"
  "http-h1|http.h2 (HTTP/1.1 only, keep-alive on)"
  "http-alt-svc-dead|h3.works (Alt-Svc h3 on a UDP port where nothing answers)"
  "http-secrets|url.secrets (a redirect whose Location carries a token)"
  "http-downgrade|http.redirects (https redirects to http)"
  "http-cleartext|http.cleartext (http:// without a redirect to https)"
  "http-redirect|http.cleartext (http:// redirecting to https://)"
  "http-429-retry-after|none (429 with Retry-After: 30)"
  "http-429-bare|retry-after (429 without Retry-After)"
  "http-503-date|none (503 with Retry-After as an HTTP-date)"
  "http-large|http.payload-size (a 2 MiB body that does not compress)"
  "http-coalesce-421|http.coalescing (localhost, in the certificate and on the same address, answered 421)"
  "ipv6-dual|none (A and AAAA, listening on 127.0.0.1 and ::1)"
  "ipv6-broken|ipv6 (AAAA ::1 published, nothing listening on ::1)"
  "ipv6-literals|ipv6 (IPv4 literals in a Location, in Alt-Svc and in the body's URLs)"
  "http-500|http.status (500)"
  "http-slow-body|http.status (a 4 KB body sent at 1 KB/s over HTTP/1.1: more than the default 3 s timeout)"
  "validity-400|none (400 days under the private root: info)"
  "inter-rsa1024|cert.key-size (the intermediate's key is RSA 1024)"
  "inter-sha1|cert.signature (the intermediate is signed with SHA-1)"
  "ed25519|cert.key-size (an Ed25519 leaf)"
  "misordered|cert.chain-order (leaf, root, intermediate)"
  "extra-cert|cert.chain-order (leaf, intermediate and an unrelated certificate)"
  "redirect-www|cert.san (https://api.audit.test redirects to https://www.api.audit.test, which the certificate lacks)"
  "redirect-http-www|cert.san (http://api.audit.test redirects to https://www.api.audit.test/hop, which the certificate lacks, then to https://127.0.0.1)"
)

quiet() { "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; "$@" >&2 || true; exit 1; }; }

# ---- The CA: root (self-signed) and intermediate, RSA 2048, SHA-256 ----
cat > "$ca/ext.cnf" <<'EOF'
[root]
basicConstraints = critical, CA:true
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[intermediate]
basicConstraints = critical, CA:true, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[leaf]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost, DNS:*.audit.test, IP:127.0.0.1, IP:::1
authorityKeyIdentifier = keyid
authorityInfoAccess = OCSP;URI:http://127.0.0.1:9/ocsp
[leaf_sct]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost, DNS:*.audit.test, IP:127.0.0.1, IP:::1
authorityKeyIdentifier = keyid
authorityInfoAccess = OCSP;URI:http://127.0.0.1:9/ocsp
# Two SCTs in the embedded SCT list (RFC 6962 3.3): made up, not signed by a log; only their count
# is read. OCTET STRING { uint16 list length = 0x0042, two of: uint16 length = 0x001f, 31 bytes }.
1.3.6.1.4.1.11129.2.4.2 = DER:04:44:00:42:00:1f:00:01:02:03:04:05:06:07:08:09:0a:0b:0c:0d:0e:0f:10:11:12:13:14:15:16:17:18:19:1a:1b:1c:1d:1e:00:1f:00:01:02:03:04:05:06:07:08:09:0a:0b:0c:0d:0e:0f:10:11:12:13:14:15:16:17:18:19:1a:1b:1c:1d:1e
[leaf_cn]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
authorityKeyIdentifier = keyid
EOF
quiet openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days 3650 -subj "/CN=sonde audit corpus root" \
  -keyout "$ca/root.key" -out "$ca/root.pem" -addext "basicConstraints=critical,CA:true" \
  -addext "keyUsage=critical,keyCertSign,cRLSign"
quiet openssl req -new -newkey rsa:2048 -nodes -subj "/CN=sonde audit corpus intermediate" -keyout "$ca/inter.key" -out "$ca/inter.csr"
quiet openssl x509 -req -in "$ca/inter.csr" -CA "$ca/root.pem" -CAkey "$ca/root.key" -CAcreateserial -sha256 -days 1825 \
  -extfile "$ca/ext.cnf" -extensions intermediate -out "$ca/inter.pem"
# Two weak intermediates under the same root: an RSA 1024 key, and a SHA-1 signature by the root.
quiet openssl req -new -newkey rsa:1024 -nodes -subj "/CN=sonde audit corpus intermediate rsa1024" -keyout "$ca/inter1024.key" -out "$ca/inter1024.csr"
quiet openssl x509 -req -in "$ca/inter1024.csr" -CA "$ca/root.pem" -CAkey "$ca/root.key" -CAcreateserial -sha256 -days 1825 \
  -extfile "$ca/ext.cnf" -extensions intermediate -out "$ca/inter1024.pem"
quiet openssl req -new -newkey rsa:2048 -nodes -subj "/CN=sonde audit corpus intermediate sha1" -keyout "$ca/intersha1.key" -out "$ca/intersha1.csr"
quiet openssl x509 -req -in "$ca/intersha1.csr" -CA "$ca/root.pem" -CAkey "$ca/root.key" -CAcreateserial -sha1 -days 1825 \
  -extfile "$ca/ext.cnf" -extensions intermediate -out "$ca/intersha1.pem"
# A self-signed certificate of no chain here: the extra-cert server sends it beside its own chain.
quiet openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days 365 -subj "/CN=sonde audit corpus stray" \
  -keyout "$ca/stray.key" -out "$ca/stray.pem"

# leaf NAME KEYSPEC DIGEST DAYS EXTENSIONS CN [ISSUER]: DIR/NAME.key, NAME.pem (leaf) and NAME.chain.pem
# (leaf + its intermediate; ISSUER names the intermediate, "inter" by default). KEYSPEC is
# req's -newkey (rsa:2048) or an algorithm for genpkey (ed25519).
leaf() {
  local name=$1 keyspec=$2 digest=$3 days=$4 extensions=$5 cn=$6 issuer=${7:-inter}
  if [[ $keyspec == rsa:* ]]; then
    quiet openssl req -new -newkey "$keyspec" -nodes -subj "/CN=$cn" -keyout "$ca/$name.key" -out "$ca/$name.csr"
  else
    quiet openssl genpkey -algorithm "$keyspec" -out "$ca/$name.key"
    quiet openssl req -new -key "$ca/$name.key" -subj "/CN=$cn" -out "$ca/$name.csr"
  fi
  quiet openssl x509 -req -in "$ca/$name.csr" -CA "$ca/$issuer.pem" -CAkey "$ca/$issuer.key" -CAcreateserial "-$digest" \
    -days "$days" -extfile "$ca/ext.cnf" -extensions "$extensions" -out "$ca/$name.pem"
  cat "$ca/$name.pem" "$ca/$issuer.pem" > "$ca/$name.chain.pem"
}
leaf clean rsa:2048 sha256 90 leaf_sct localhost
leaf rsa1024 rsa:1024 sha256 90 leaf localhost
leaf sha1 rsa:2048 sha1 90 leaf localhost
leaf cn-only rsa:2048 sha256 90 leaf_cn localhost
leaf long-validity rsa:2048 sha256 825 leaf localhost
# 400 days as Apple counts (notBefore through notAfter inclusive: -days 399 and a second): over
# its 398 for preinstalled roots, within its 825 for a private one.
leaf validity-400 rsa:2048 sha256 399 leaf localhost
leaf inter-rsa1024 rsa:2048 sha256 90 leaf localhost inter1024
leaf inter-sha1 rsa:2048 sha256 90 leaf localhost intersha1
leaf ed25519 ed25519 sha256 90 leaf localhost
# Sent as leaf, root, intermediate; and as leaf, intermediate, an unrelated self-signed certificate.
cat "$ca/clean.pem" "$ca/root.pem" "$ca/inter.pem" > "$ca/misordered.chain.pem"
cat "$ca/clean.pem" "$ca/inter.pem" "$ca/stray.pem" > "$ca/extra-cert.chain.pem"

# The clean server's stapled OCSP response (nginx ssl_stapling_file), signed by the intermediate.
serial=$(openssl x509 -in "$ca/clean.pem" -noout -serial | cut -d= -f2)
expiry=$(date -u -d "+90 days" +%y%m%d%H%M%SZ)
printf 'V\t%s\t\t%s\tunknown\t/CN=localhost\n' "$expiry" "$serial" > "$ca/index.txt"
quiet openssl ocsp -issuer "$ca/inter.pem" -cert "$ca/clean.pem" -no_nonce -reqout "$ca/ocsp.req"
quiet openssl ocsp -index "$ca/index.txt" -CA "$ca/inter.pem" -rsigner "$ca/inter.pem" -rkey "$ca/inter.key" \
  -reqin "$ca/ocsp.req" -respout "$ca/clean.ocsp.der" -ndays 7

echo '{"ok":true}' > www/index.json
# 4 000 bytes of JSON for http-slow-body.
{ printf '{"pad":"'; head -c 3988 /dev/zero | tr '\0' 'x'; printf '"}\n'; } > www/slow.json
# 2 MiB that gzip cannot shrink, for http-large.
head -c 2097152 /dev/urandom > www/large.bin
# 6.7 KB of JSON: compressible, over any gzip_min_length.
{ printf '['; for i in $(seq 1 150); do printf '{"id":%d,"name":"item %d","tags":["a","b"]},' "$i" "$i"; done; printf '{"id":0}]\n'; } > www/data.json

# ---- nginx ----
modern_ciphers="ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"
hsts='add_header Strict-Transport-Security "max-age=31536000; includeSubDomains" always;'
# The HTTP group's defaults, the clean HTTP server's configuration: gzip with Vary for JSON.
gzip_clean='gzip on; gzip_types application/json; gzip_min_length 256; gzip_vary on;'
server() {  # server PORT CERT KEY PROTOCOLS CIPHERS EXTRA [LISTEN [EXTRA_LISTEN]]
  cat <<EOF
    server {
        listen 127.0.0.1:$1 ${7:-ssl};
        ${8:-}
        server_name $sname;
        ssl_certificate $2;
        ssl_certificate_key $3;
        ssl_protocols $4;
        ssl_ciphers $5;
        ssl_prefer_server_ciphers on;
        root $dir/www;
        $6
    }
EOF
}
{
  cat <<EOF
daemon off;
master_process on;
worker_processes 1;
user root;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 256; }
http {
    access_log off;
    client_body_temp_path $dir/tmp/body;
    proxy_temp_path $dir/tmp/proxy;
    fastcgi_temp_path $dir/tmp/fastcgi;
    uwsgi_temp_path $dir/tmp/uwsgi;
    scgi_temp_path $dir/tmp/scgi;
    default_type application/json;
    # The TLS group is audited at /: it answers 200 with index.json.
    index index.json;
EOF
  port=$base
  : > corpus.tsv
  # The ports some servers name: http-clean (http-redirect's target), http-cleartext (http-downgrade's).
  for i in "${!CONFIGS[@]}"; do
    case ${CONFIGS[$i]%%|*} in
      http-clean) clean_port=$((base + i)) ;; http-cleartext) cleartext_port=$((base + i)) ;; redirect-www) www_port=$((base + i)) ;;
    esac
  done
  for entry in "${CONFIGS[@]}"; do
    name=${entry%%|*} flaw=${entry#*|}
    cert=$ca/clean.chain.pem key=$ca/clean.key protocols="TLSv1.2 TLSv1.3" ciphers=$modern_ciphers extra=$hsts listen=ssl
    group=tls url=https://127.0.0.1:$port/ resolve="" listen6="" after="" sname=localhost
    if [[ $name == http-* || $name == ipv6-* ]]; then
      group=http url=https://127.0.0.1:$port/data.json listen="ssl http2" extra="$hsts $gzip_clean"
    fi
    case $name in validity-400|inter-*|ed25519|misordered|extra-cert) group=chain listen="ssl http2" ;; redirect-*) group=redirect ;; esac
    case $name in
      clean) extra="$hsts ssl_stapling on; ssl_stapling_file $ca/clean.ocsp.der;" ;;
      tls10) protocols="TLSv1 TLSv1.1"; ciphers="ECDHE-RSA-AES128-SHA:ECDHE-RSA-AES256-SHA:AES128-SHA:@SECLEVEL=0" ;;
      no-fs) protocols="TLSv1.2"; ciphers="AES128-GCM-SHA256:AES256-GCM-SHA384:AES128-SHA256" ;;
      rsa1024) cert=$ca/rsa1024.chain.pem key=$ca/rsa1024.key ciphers="$modern_ciphers:@SECLEVEL=0" ;;
      sha1) cert=$ca/sha1.chain.pem key=$ca/sha1.key ciphers="$modern_ciphers:@SECLEVEL=0" ;;
      cn-only) cert=$ca/cn-only.chain.pem key=$ca/cn-only.key ;;
      long-validity) cert=$ca/long-validity.chain.pem key=$ca/long-validity.key ;;
      missing-intermediate) cert=$ca/clean.pem ;;
      hsts-off) extra="" ;;
      hsts-short) extra='add_header Strict-Transport-Security "max-age=300" always;' ;;
      validity-400) cert=$ca/validity-400.chain.pem key=$ca/validity-400.key ;;
      # OpenSSL 3 at Debian's security level 2 refuses a chain with a weak CA: level 0 lets nginx serve it.
      inter-rsa1024) cert=$ca/inter-rsa1024.chain.pem key=$ca/inter-rsa1024.key ciphers="$modern_ciphers:@SECLEVEL=0" ;;
      inter-sha1) cert=$ca/inter-sha1.chain.pem key=$ca/inter-sha1.key ciphers="$modern_ciphers:@SECLEVEL=0" ;;
      ed25519) cert=$ca/ed25519.chain.pem key=$ca/ed25519.key ;;
      misordered) cert=$ca/misordered.chain.pem ;;
      extra-cert) cert=$ca/extra-cert.chain.pem ;;
      # https://api.audit.test (in the certificate as *.audit.test) redirects to www.api.audit.test
      # (not in it: a wildcard covers one label); www.api.audit.test itself is served.
      redirect-www)
        url=https://api.audit.test:$port/data.json resolve="api.audit.test:$port:127.0.0.1 www.api.audit.test:$port:127.0.0.1"
        sname="api.audit.test www.api.audit.test" listen="ssl http2"
        extra="$hsts $gzip_clean location = /hop { return 302 https://127.0.0.1:$clean_port/data.json; } location / { if (\$host = api.audit.test) { return 301 https://www.api.audit.test:$port\$request_uri; } }" ;;
      # http://api.audit.test redirects to https://www.api.audit.test/hop (the name the certificate
      # lacks), which redirects to http-clean's https://127.0.0.1: the final host's certificate is fine.
      redirect-http-www)
        listen="" url=http://api.audit.test:$port/data.json
        resolve="api.audit.test:$port:127.0.0.1 www.api.audit.test:$www_port:127.0.0.1"
        extra="return 301 https://www.api.audit.test:$www_port/hop;" ;;
      http-gzip-off) extra="$hsts gzip off;" ;;
      http-no-vary) extra="$hsts gzip on; gzip_types application/json; gzip_min_length 256; gzip_vary off;" ;;
      # SSI processing drops Last-Modified and ETag (ssi_last_modified off, the default).
      http-no-validator) extra="$hsts $gzip_clean ssi on; ssi_types application/json;" ;;
      http-no-304) extra="$hsts $gzip_clean etag off; if_modified_since off;" ;;
      http-close) listen=ssl extra="$hsts $gzip_clean keepalive_timeout 0;" ;;
      http-h1) listen=ssl ;;
      http-alt-svc-dead) extra="$hsts $gzip_clean add_header Alt-Svc 'h3=\":$port\"; ma=60' always;" ;;
      http-secrets)
        url=https://127.0.0.1:$port/login
        extra="$hsts $gzip_clean location = /login { return 302 /data.json?access_token=corpus-secret-token; }" ;;
      http-downgrade) extra="$hsts $gzip_clean location = /data.json { return 302 http://127.0.0.1:$cleartext_port/data.json; }" ;;
      http-cleartext) listen="" url=http://127.0.0.1:$port/data.json extra="$gzip_clean" ;;
      http-redirect) listen="" url=http://127.0.0.1:$port/data.json extra="return 301 https://127.0.0.1:$clean_port\$request_uri;" ;;
      http-429-retry-after) extra="$hsts add_header Retry-After 30 always; location = /data.json { return 429; }" ;;
      http-429-bare) extra="$hsts location = /data.json { return 429; }" ;;
      http-503-date) extra="$hsts add_header Retry-After 'Fri, 01 Jan 2027 00:00:00 GMT' always; location = /data.json { return 503; }" ;;
      http-large) url=https://127.0.0.1:$port/large.bin extra="$hsts $gzip_clean default_type application/octet-stream;" ;;
      http-500) extra="$hsts location = /data.json { return 500; }" ;;
      # 4 000 bytes at 1 000 bytes/s: about 3.5 s, past the audit's default 3 s timeout; keep-alive
      # on, HTTP/1.1 only (a timed-out HTTP/1.1 transfer loses its connection; an h2 stream does
      # not), a type that does not compress.
      http-slow-body)
        url=https://127.0.0.1:$port/slow.json listen=ssl
        extra="$hsts location = /slow.json { gzip off; limit_rate 1000; types { } default_type application/octet-stream; }" ;;
      # A server block for the name localhost, on the same address and certificate, that refuses
      # requests with 421, after the audited one (127.0.0.1, no SNI), which is the default.
      http-coalesce-421)
        sname=coalesce.audit.test
        after="    server { listen 127.0.0.1:$port ssl http2; server_name localhost; ssl_certificate $cert; ssl_certificate_key $key; ssl_protocols $protocols; ssl_ciphers $ciphers; return 421; }" ;;
      ipv6-dual)
        url=https://dual.audit.test:$port/data.json resolve="dual.audit.test:$port:127.0.0.1,[::1]" listen6="listen [::1]:$port ssl http2;" ;;
      ipv6-broken)
        url=https://broken6.audit.test:$port/data.json resolve="broken6.audit.test:$port:127.0.0.1,[::1]" ;;
      ipv6-literals)
        # Three places a client is handed an IPv4 literal: a redirect, Alt-Svc, the body's URLs.
        { printf '{"items":['; for i in $(seq 1 60); do printf '{"id":%d,"url":"https://127.0.0.1:%d/items/%d"},' "$i" "$port" "$i"; done; printf '{"id":0}]}\n'; } > www/literals.json
        url=https://literals.audit.test:$port/start resolve="literals.audit.test:$port:127.0.0.1,[::1]" listen6="listen [::1]:$port ssl http2;"
        extra="$hsts $gzip_clean add_header Alt-Svc 'h2=\"127.0.0.1:$port\"; ma=60' always; location = /start { return 302 https://127.0.0.1:$port/literals.json; }" ;;
    esac
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$port" "$flaw" "$group" "$url" "$resolve" >> corpus.tsv

    if [[ -z $listen ]]; then
      printf '    server {\n        listen 127.0.0.1:%s;\n        server_name localhost;\n        root %s/www;\n        %s\n    }\n' \
        "$port" "$dir" "$extra"
    else
      server "$port" "$cert" "$key" "$protocols" "$ciphers" "$extra" "$listen" "$listen6"
    fi
    if [[ -n $after ]]; then
      printf '%s\n' "$after"
    fi
    port=$((port + 1))
  done
  echo "}"
} > nginx.conf

nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" </dev/null >/dev/null 2>&1 &
last=$((base + ${#CONFIGS[@]} - 1))
for _ in $(seq 1 50); do
  if [ -s "$dir/nginx.pid" ] && (exec 3<>"/dev/tcp/127.0.0.1/$last") 2>/dev/null; then exit 0; fi
  sleep 0.1
done
echo "nginx did not start; see $dir/error.log" >&2
cat "$dir/error.log" >&2 || true
exit 1
