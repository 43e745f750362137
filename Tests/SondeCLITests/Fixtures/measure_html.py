#!/usr/bin/env python3
"""Measures an HTML report's layout in headless Chromium at a given window width, through the
DevTools protocol (the page's CSP forbids scripts; DevTools' Runtime.evaluate is not a page
script). Usage: measure_html.py REPORT.html [WIDTH]
Prints one JSON object: the viewport width, the page's scrollWidth, every `.scroll` box (its
section's heading, clientWidth, scrollWidth); for every waterfall bar, its row's request and total
(ms, the cell before the timeline), the painted width of its segments and of the bar itself (px) and its right
edge beside its cell's; the waterfall's timeline column width beside its table's and its section's
(`timeline`); every chart (`svg.chart`): its classes, its width beside its section's, its text
labels (`axis`, `unit` and `time` ones apart) and the legend items of its figure; and for an audit page
(`audit`) where its summary starts (px from the page's top), each summary link with the top of the
section it leads to, each URL's section, the computed colour of each severity's cell and the
rows of each cipher-suite table; each `ipv6.app-review` table's rows (`appReview`): the URL and DNS
cells' text, lines (line boxes) and width.
Exit 0 when it measured; 2 when Chromium is missing; 1 on a failure.
Bounded: Chromium is killed after 60 s at the latest."""
import asyncio
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

from websockets.asyncio.client import connect

MEASURE = r"""(() => JSON.stringify({
  viewport: window.innerWidth,
  pageScrollWidth: document.documentElement.scrollWidth,
  boxes: [...document.querySelectorAll('.scroll')].map(box => ({
    heading: ((box.closest('section') || document.body).querySelector('h2') || {textContent: ''}).textContent.slice(0, 80),
    clientWidth: box.clientWidth, scrollWidth: box.scrollWidth})),
  bars: [...document.querySelectorAll('td.bar > div')].map(bar => ({
    request: bar.closest('tr').querySelector('td.url').textContent,
    total: ((bar.closest('td').previousElementSibling || {textContent: ''}).textContent),
    width: [...bar.querySelectorAll(':scope > i')].reduce((sum, segment) => sum + segment.getBoundingClientRect().width, 0),
    barWidth: bar.getBoundingClientRect().width,
    right: bar.getBoundingClientRect().right,
    cellRight: bar.closest('td').getBoundingClientRect().right})),
  audit: (() => {
    const top = el => el.getBoundingClientRect().top + window.scrollY;
    const summary = document.querySelector('section.audit-summary');
    const colour = css => { const cell = document.querySelector('table.verdict td.' + css); return cell ? getComputedStyle(cell).color : null; };
    return {
      summaryTop: summary ? top(summary) : null,
      links: summary ? [...summary.querySelectorAll('a[href^="#"]')].map(a => {
        const target = document.getElementById(a.getAttribute('href').slice(1));
        return {href: a.getAttribute('href'), text: a.textContent, targetTop: target ? top(target) : null};
      }) : [],
      sections: [...document.querySelectorAll('section.audit')].map(section => ({id: section.id, top: top(section)})),
      severityColours: {pass: colour('pass'), info: colour('muted'), warn: colour('warn'), fail: colour('fail')},
      suiteRows: [...document.querySelectorAll('section.audit table')].filter(t => (t.querySelector('th') || {}).textContent === 'suite accepted')
        .map(t => t.querySelectorAll('tbody tr').length),
    };
  })(),
  appReview: (() => {
    const lines = cell => new Set([...(() => { const r = document.createRange(); r.selectNodeContents(cell); return r.getClientRects(); })()]
      .map(rect => Math.round(rect.top))).size;
    const column = (table, name) => [...table.querySelectorAll('thead th')].findIndex(th => th.textContent === name);
    return [...document.querySelectorAll('table.app-review')].flatMap(table => [...table.querySelectorAll('tbody tr')].map(row => {
      const url = row.cells[column(table, 'URL')], dns = row.cells[column(table, 'DNS')];
      return {url: url.textContent, urlLines: lines(url), urlWidth: url.getBoundingClientRect().width,
              dns: dns.textContent, dnsLines: lines(dns), dnsWidth: dns.getBoundingClientRect().width};
    }));
  })(),
  timeline: [...document.querySelectorAll('table.waterfall')].map(table => ({
    column: (table.querySelector('td.bar') || table).getBoundingClientRect().width,
    table: table.getBoundingClientRect().width,
    section: table.closest('section').getBoundingClientRect().width})),
  charts: [...document.querySelectorAll('svg.chart')].map(svg => ({
    classes: svg.getAttribute('class'),
    width: svg.getBoundingClientRect().width,
    section: (svg.closest('section') || document.body).getBoundingClientRect().width,
    axisLabels: [...svg.querySelectorAll('text.axis')].map(t => t.textContent),
    unitLabels: [...svg.querySelectorAll('text.unit')].map(t => t.textContent),
    timeLabels: [...svg.querySelectorAll('text.time')].map(t => t.textContent),
    legend: [...((svg.closest('figure') || svg).querySelectorAll('.legend span'))].map(item => ({
      text: item.textContent, color: getComputedStyle(item.querySelector('i') || item).backgroundColor}))})),
}))()"""


async def measure(page_path: str, width: int, port: int) -> str:
    targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10))
    page = next(t for t in targets if t.get("type") == "page")
    async with connect(page["webSocketDebuggerUrl"], max_size=1 << 24) as ws:
        counter = 0

        async def call(method, params=None):
            nonlocal counter
            counter += 1
            await ws.send(json.dumps({"id": counter, "method": method, "params": params or {}}))
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), 30))
                if message.get("id") == counter:
                    return message.get("result", {})

        await call("Emulation.setDeviceMetricsOverride", {"width": width, "height": 1200, "deviceScaleFactor": 1, "mobile": False})
        await call("Page.navigate", {"url": "file://" + os.path.abspath(page_path)})
        for _ in range(100):
            state = await call("Runtime.evaluate", {"expression": "document.readyState", "returnByValue": True})
            if state.get("result", {}).get("value") == "complete":
                break
            await asyncio.sleep(0.1)
        result = await call("Runtime.evaluate", {"expression": MEASURE, "returnByValue": True})
        return result["result"]["value"]


def main() -> int:
    page_path = sys.argv[1]
    width = int(sys.argv[2]) if len(sys.argv) > 2 else 1400
    # Chromium's helper processes may still write to the profile as it is removed: its whole
    # process group is killed, and what is left behind is not an error of the page.
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:
        browser = subprocess.Popen([BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                    f"--user-data-dir={profile}", "--remote-debugging-port=0", "about:blank"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
        killer = threading.Timer(60, browser.kill)
        killer.start()
        try:
            port = None
            started = time.monotonic()
            while port is None and time.monotonic() - started < 30:
                line = browser.stderr.readline()
                if not line:
                    break
                found = re.search(r"DevTools listening on ws://127\.0\.0\.1:(\d+)/", line)
                port = int(found.group(1)) if found else None
            if port is None:
                print("Chromium did not open its DevTools port", file=sys.stderr)
                return 1
            print(asyncio.run(measure(page_path, width, port)))
            return 0
        finally:
            killer.cancel()
            try:
                os.killpg(browser.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            browser.wait()


BROWSER = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
if __name__ == "__main__":
    if BROWSER is None:
        print("chromium is not installed", file=sys.stderr)
        sys.exit(2)
    sys.exit(main())
