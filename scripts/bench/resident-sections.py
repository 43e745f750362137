#!/usr/bin/env python3
"""resident-sections.py PID BINARY [UNSTRIPPED SYMBOL...]: resident KiB of BINARY's mapping in PID, per ELF section
(from /proc/PID/pagemap); with UNSTRIPPED (the same link before `strip`, for its symbol table) and symbol names, also
the resident KiB within each of those symbols (e.g. icudt76_dat, ICU's data)."""
import sys, re, subprocess, struct, collections
pid, binp = sys.argv[1], sys.argv[2]
symbols = {}
if len(sys.argv) > 4:
    wanted = set(sys.argv[4:])
    for l in subprocess.run(['nm', '-S', '--defined-only', sys.argv[3]], capture_output=True, text=True).stdout.splitlines():
        p = l.split()
        if len(p) == 4 and p[3] in wanted: symbols[p[3]] = (int(p[0], 16), int(p[1], 16))
secs = []
for l in subprocess.run(['readelf', '-SW', binp], capture_output=True, text=True).stdout.splitlines():
    m = re.match(r'\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)', l)
    if m and int(m.group(2), 16): secs.append((m.group(1), int(m.group(2), 16), int(m.group(4), 16)))
maps = []
for line in open(f'/proc/{pid}/maps'):
    p = line.split()
    if len(p) > 5 and p[5] == binp:
        a, b = [int(x, 16) for x in p[0].split('-')]
        maps.append((a, b, int(p[2], 16)))
base = min(a - off for a, b, off in maps)  # load bias (first mapping at offset 0 ↔ vaddr 0 in a PIE)
res = collections.Counter()
with open(f'/proc/{pid}/pagemap', 'rb') as pm:
    for a, b, off in maps:
        pm.seek(a // 4096 * 8)
        data = pm.read((b - a) // 4096 * 8)
        for i in range((b - a) // 4096):
            e = struct.unpack_from('<Q', data, i * 8)[0]
            if e >> 63:
                v = a + i * 4096 - base
                name = next((s[0] for s in secs if s[1] <= v < s[1] + s[2]), '(other)')
                res[name] += 4
                for sym, (start, size) in symbols.items():
                    if start <= v + 4095 and v < start + size: res['symbol ' + sym] += 4
tot = sum(v for k, v in res.items() if not k.startswith('symbol '))
for k, v in res.most_common(25):
    size = next((s[2] for s in secs if s[0] == k), 0) or next((z for n, (_, z) in symbols.items() if k == 'symbol ' + n), 0)
    print(f'{v/1024:7.1f} MiB of {size/1048576:6.1f} MiB  {k}')
print(f'{tot/1024:7.1f} MiB resident in all')
