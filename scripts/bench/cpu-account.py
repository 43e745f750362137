"""Runs one command and accounts for the CPU it and a server process used, for `make bench`.

Usage: cpu-account.py SERVER_PID REQUESTS -- COMMAND [ARG ...]
Prints one JSON object:
  "wall"     seconds from start to exit;
  "threads"  µs of CPU (user + system) per request, summed over the command's threads by name
             (sonde names its threads "sonde-engine" and "sonde-recorder"). Threads are sampled
             from /proc/PID/task every 20 ms, so a thread's last 20 ms may be missing;
  "process"  µs of CPU per request for the whole command, exact (wait4's rusage);
  "server"   µs of CPU per request that SERVER_PID (e.g. nginx's worker) used meanwhile;
  "stdout"   the command's output (its first 64 KiB).
Loopback benchmarking only.
"""
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(stat_path):
    # Fields after the ")" that ends comm: utime and stime are the 12th and 13th.
    fields = open(stat_path).read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def main():
    if len(sys.argv) < 5 or sys.argv[3] != "--":
        sys.exit("usage: cpu-account.py SERVER_PID REQUESTS -- COMMAND [ARG ...]")
    server, requests, command = int(sys.argv[1]), int(sys.argv[2]), sys.argv[4:]
    server_before = cpu_seconds(f"/proc/{server}/stat")
    exited = threading.Event()
    result = {}

    def reap(pid):
        # Blocks until the command exits, so the wall time does not wait for the next sample.
        _, result["status"], result["usage"] = os.wait4(pid, 0)
        result["end"] = time.perf_counter()
        exited.set()

    start = time.perf_counter()
    output = tempfile.TemporaryFile()
    child = subprocess.Popen(command, stdout=output)
    reaper = threading.Thread(target=reap, args=(child.pid,))
    reaper.start()
    last = {}  # task id -> (comm, cpu seconds), the newest sample
    for _ in range(30_000):  # 20 ms apart: at most 10 minutes
        try:
            tasks = os.listdir(f"/proc/{child.pid}/task")
        except OSError:
            tasks = []  # the process ended
        for task in tasks:
            path = f"/proc/{child.pid}/task/{task}"
            try:
                last[task] = (open(path + "/comm").read().strip(), cpu_seconds(path + "/stat"))
            except OSError:
                pass  # this thread ended while it was read; the others are still sampled
        if exited.wait(0.02):
            break
    else:
        child.kill()
    reaper.join()
    child.returncode = result["status"]  # reaped above, for its rusage: Popen must not wait again
    status, usage, wall = result["status"], result["usage"], result["end"] - start
    if status != 0:
        sys.exit(f"cpu-account.py: {command[0]} exited with status {os.waitstatus_to_exitcode(status)}")
    per_request = 1e6 / requests
    threads = {}
    for name, seconds in last.values():
        threads[name] = threads.get(name, 0) + seconds * per_request
    output.seek(0)
    print(json.dumps({
        "wall": wall,
        "threads": threads,
        "process": (usage.ru_utime + usage.ru_stime) * per_request,
        "server": (cpu_seconds(f"/proc/{server}/stat") - server_before) * per_request,
        "stdout": output.read(65536).decode(errors="replace"),
    }))


main()
