#!/usr/bin/env python3
"""Compares the TLS milestones of `sonde analyze` with tshark's TLS dissector on the same files.
Usage: tls_oracle.py SONDE WORKDIR CAPTURE...
For every connection whose client opened with a TLS handshake record, tshark's records (in
capture order; within a frame the cleartext records, then TLS 1.3's opaque ones) are read with
the rules of FlowEvidence.TLS and compared field by field with sonde's `flows[].tls`.
Prints a JSON list, one entry per connection: {file, client, tshark: {...}, sonde: {...}, mismatches: [...]}.
Exit 0 when everything agrees and every connection was found by both; 1 otherwise."""
import calendar
import datetime
import json
import os
import subprocess
import sys

VERSIONS = {"0x0300": "SSLv3", "0x0301": "TLSv1", "0x0302": "TLSv1.1", "0x0303": "TLSv1.2", "0x0304": "TLSv1.3"}
FIELDS = ["tcp.srcport", "tcp.dstport", "frame.time_epoch", "tls.record.content_type", "tls.record.opaque_type",
          "tls.handshake.type", "tls.handshake.extensions_server_name", "tls.handshake.extensions_alpn_str",
          "tls.handshake.ciphersuite", "tls.handshake.extensions.supported_version", "tls.handshake.version"]


def micros(epoch):
    seconds, _, fraction = epoch.partition(".")
    return int(seconds) * 1_000_000 + int((fraction + "000000")[:6])


def iso_micros(text):
    if text is None:
        return None
    moment = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ")
    return calendar.timegm(moment.utctimetuple()) * 1_000_000 + moment.microsecond


def grease(code):
    value = int(code, 16)
    return value & 0x0F0F == 0x0A0A and value >> 8 == value & 0xFF


def tshark_view(path, server_ports):
    out = subprocess.run(["tshark", "-r", path, "-Y", "tls", "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=,"]
                         + sum((["-e", f] for f in FIELDS), []), capture_output=True, text=True, check=True)
    flows = {}
    for line in out.stdout.splitlines():
        cols = (line.split("\t") + [""] * len(FIELDS))[:len(FIELDS)]
        sport, dport = int(cols[0]), int(cols[1])
        from_client = dport in server_ports
        client = sport if from_client else dport
        f = flows.setdefault(client, {"records": []})
        at = micros(cols[2])
        types = [int(t) for t in cols[3].split(",") if t] + [int(t) for t in cols[4].split(",") if t]
        hs = [t for t in cols[5].split(",") if t]
        for t in types:
            f["records"].append((from_client, t, at))
        if from_client and "1" in hs and "clientHelloAt" not in f:
            f["clientHelloAt"] = at
            f["serverName"] = cols[6] or None
            f["offeredAlpn"] = [a for a in cols[7].split(",") if a]
            versions = [v for v in cols[9].split(",") if v and not grease(v)] or [cols[10].split(",")[0]]
            f["offeredVersions"] = [VERSIONS.get(v, v) for v in versions]
        if not from_client and "2" in hs and "serverHelloAt" not in f:
            f["serverHelloAt"] = at
            f["cipherSuiteCode"] = cols[8].split(",")[0]
            f["alpn"] = cols[7] or None
            version = cols[9].split(",")[0] or cols[10].split(",")[0]
            f["version"] = VERSIONS.get(version, version)
    # The milestones, with FlowEvidence.TLS's rules, from tshark's records.
    for f in flows.values():
        tls13 = f.get("version") == "TLSv1.3"
        m = {k: None for k in ["clientChangeCipherSpecAt", "serverChangeCipherSpecAt", "clientFinishedAt", "serverFinishedAt",
                               "clientFirstApplicationDataAt", "serverFirstApplicationDataAt"]}
        alerts = 0
        for from_client, t, at in f["records"]:
            side = "client" if from_client else "server"
            if from_client and m["clientFirstApplicationDataAt"] is not None:
                continue  # sonde stops reading a side at its first application data
            if not from_client and m["serverFirstApplicationDataAt"] is not None:
                continue
            if t == 20 and m[side + "ChangeCipherSpecAt"] is None:
                m[side + "ChangeCipherSpecAt"] = at
            elif t == 21:
                alerts += 1
            elif t == 22:
                if (not tls13 and "serverHelloAt" in f and at >= f["serverHelloAt"]
                        and m[side + "ChangeCipherSpecAt"] is not None and m[side + "FinishedAt"] is None):
                    m[side + "FinishedAt"] = at
            elif t == 23 and f.get("version"):
                if from_client:
                    if tls13 and m["clientFinishedAt"] is None:
                        m["clientFinishedAt"] = at
                    elif m["clientFirstApplicationDataAt"] is None:
                        m["clientFirstApplicationDataAt"] = at
                elif (not tls13 or m["clientFinishedAt"] is not None) and m["serverFirstApplicationDataAt"] is None:
                    m["serverFirstApplicationDataAt"] = at
        f.update(m)
        f["alerts"] = alerts
        del f["records"]
    return flows


def sonde_view(binary, path, workdir):
    out = subprocess.run([binary, "analyze", "--json", "--output-dir", os.path.join(workdir, "reports"), path],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"sonde analyze {path} exited {out.returncode}: {out.stderr}")
    flows = {}
    for flow in json.loads(out.stdout)["captures"][0]["flows"]:
        if flow.get("tls"):
            tls = dict(flow["tls"])
            for key in list(tls):
                if key.endswith("At"):
                    tls[key] = iso_micros(tls[key])
            flows[flow["clientPort"]] = (flow["serverPort"], tls)
    return flows


def main():
    binary, workdir, captures = sys.argv[1], sys.argv[2], sys.argv[3:]
    results, ok = [], True
    for path in captures:
        sonde = sonde_view(binary, path, workdir)
        tshark = tshark_view(path, {server for server, _ in sonde.values()})
        for client in sorted(set(sonde) | set(tshark)):
            expected = tshark.get(client)
            actual = sonde.get(client, (None, None))[1]
            mismatches = []
            if expected is None or actual is None:
                mismatches.append("seen by only one of the two")
            else:
                for key, value in expected.items():
                    if actual.get(key) != value:
                        mismatches.append(f"{key}: tshark {value!r}, sonde {actual.get(key)!r}")
            ok = ok and not mismatches
            results.append({"file": os.path.basename(path), "client": client, "tshark": expected, "sonde": actual,
                            "mismatches": mismatches})
    print(json.dumps(results, indent=1))
    return 0 if ok and results else 1


if __name__ == "__main__":
    sys.exit(main())
