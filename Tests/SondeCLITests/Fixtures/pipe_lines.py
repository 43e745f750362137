#!/usr/bin/env python3
"""Runs a command with its stdout and stderr on pipes (neither is a terminal, as in a CI job)
and writes, as JSON on its own stdout, each line the command printed with the moment it arrived
through the pipe (seconds since the command started), its stream, and the command's exit status
and duration: {"status": N, "seconds": S, "lines": [[T, "out"|"err", "text"], ...]}.

Usage: pipe_lines.py TIMEOUT COMMAND [ARGUMENT...]   (the command is killed after TIMEOUT seconds)
"""
import json
import os
import selectors
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    timeout = float(sys.argv[1])
    started = time.monotonic()
    process = subprocess.Popen(sys.argv[2:], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ, "out")
    selector.register(process.stderr, selectors.EVENT_READ, "err")
    pending = {"out": b"", "err": b""}
    lines = []
    open_streams = 2
    while open_streams:
        left = timeout - (time.monotonic() - started)
        if left <= 0:
            process.kill()
            break
        for key, _ in selector.select(timeout=min(left, 1.0)):
            data = os.read(key.fileobj.fileno(), 65536)
            if not data:
                selector.unregister(key.fileobj)
                open_streams -= 1
                continue
            now = time.monotonic() - started
            pending[key.data] += data
            while b"\n" in pending[key.data]:
                line, pending[key.data] = pending[key.data].split(b"\n", 1)
                lines.append([round(now, 3), key.data, line.decode("utf-8", "replace")])
    for stream, rest in pending.items():
        if rest:
            lines.append([round(time.monotonic() - started, 3), stream, rest.decode("utf-8", "replace")])
    status = process.wait()
    print(json.dumps({"status": status, "seconds": round(time.monotonic() - started, 3), "lines": lines}))


if __name__ == "__main__":
    main()
