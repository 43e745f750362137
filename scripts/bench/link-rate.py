"""IP-level delivery rate from a capture on the namespace's TUN (packets from the server), after
the first SKIP seconds (slow start), for scripts/bench/link.sh. Usage: link-rate.py PCAP SKIP"""
import sys

from pcap_packets import packets

path, skip = sys.argv[1], float(sys.argv[2])
times, sizes = [], []
for time, _, original in packets(path):
    times.append(time)
    sizes.append(original)
if len(times) < 2:
    sys.exit("no packets in " + path)
start = times[0] + skip
window = [(t, s) for t, s in zip(times, sizes) if t >= start]
# Bytes delivered between the first and the last packet of the window (the first one's bytes left before it).
span = window[-1][0] - window[0][0]
total = sum(s for _, s in window[1:])
print("IP-level delivery after the first %.0f s: %.3f Mbit/s (%d packets over %.2f s); whole capture %.3f Mbit/s" % (
    skip, total * 8 / span / 1e6, len(window), span, sum(sizes[1:]) * 8 / (times[-1] - times[0]) / 1e6))
