#!/usr/bin/env python3
"""Loads an HTML report in headless Chromium the way a person opens it from disk, and reports
what the page did. Usage: check_html.py REPORT.html SCREENSHOT.png [WIDTH]
Prints one JSON object: console messages, every URL the page requested (other than itself),
whether an XSS marker attribute appeared in the live DOM, the load time and the screenshot path.
Exit 0 when it could run Chromium (the caller judges the facts); 2 when Chromium is missing."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

# Chromium's own background traffic off, so every request in the net log is the page's.
QUIET = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync",
         "--disable-background-networking", "--disable-component-update", "--disable-default-apps",
         "--disable-domain-reliability", "--disable-client-side-phishing-detection", "--metrics-recording-only",
         "--disable-features=Translate,OptimizationHints,MediaRouter,AutofillServerCommunication,SpellCheck",
         "--no-default-browser-check", "--enable-logging=stderr", "--v=0"]


def chromium(args, profile, timeout=90):
    return subprocess.run([BROWSER, f"--user-data-dir={profile}"] + QUIET + args,
                          capture_output=True, text=True, timeout=timeout)


def main() -> int:
    page, screenshot = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    width = int(sys.argv[3]) if len(sys.argv) > 3 else 1200
    url = "file://" + page
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:
        net_log = os.path.join(profile, "net.json")
        started = time.monotonic()
        dom = chromium([f"--log-net-log={net_log}", "--dump-dom", url], profile)
        load_seconds = time.monotonic() - started
        shot = chromium([f"--window-size={width},1600", f"--screenshot={screenshot}", url], profile)
        requests = set()
        try:
            log = json.load(open(net_log))
            start_job = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
            for event in log.get("events", []):
                params = event.get("params", {})
                # The browser's own service traffic has no page initiator ("not an origin"); what
                # the report page asks for is initiated by its file:// origin ("null").
                if event.get("type") != start_job or params.get("initiator") == "not an origin":
                    continue
                if params.get("url") and params["url"] != url:
                    requests.add(params["url"])
        except (OSError, ValueError) as error:
            requests.add(f"(net log unreadable: {error})")
    console = [line for line in (dom.stderr + shot.stderr).splitlines() if ":CONSOLE" in line]
    print(json.dumps({
        "console": console,
        "requests": sorted(requests),
        # A payload that ran sets the attribute on <body>; as escaped text it only appears in content.
        "xssExecuted": re.search(r"<body[^>]*\bdata-xss\b", dom.stdout) is not None,
        "domBytes": len(dom.stdout),
        "loadSeconds": round(load_seconds, 3),
        "screenshot": screenshot if os.path.exists(screenshot) else None,
    }))
    return 0


BROWSER = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
if __name__ == "__main__":
    if BROWSER is None:
        print("chromium is not installed", file=sys.stderr)
        sys.exit(2)
    sys.exit(main())
