#!/usr/bin/env python3
"""The Python `websockets` (asyncio) peer of sonde's WebSocket benchmarks.

  ws-python-client.py rtt URL COUNT INTERVAL_S
      one connection, COUNT pings INTERVAL_S apart; prints the median ping RTT in ms
      (measured as the library exposes it: from ping() to the pong's arrival).
  ws-python-client.py hold URL CONNECTIONS RAMP_S HOLD_S PING_S
      opens CONNECTIONS connections spread over RAMP_S, pings each every PING_S, holds them
      HOLD_S after the ramp; prints JSON: connections opened, still up at the end, failures
      (with the first error), CPU seconds of this process."""
import asyncio
import json
import resource
import statistics
import sys
import time

from websockets.asyncio.client import connect


async def rtt(url: str, count: int, interval: float) -> None:
    samples = []
    async with connect(url, ping_interval=None) as ws:
        for _ in range(count):
            start = time.perf_counter()
            waiter = await ws.ping()
            await waiter
            samples.append((time.perf_counter() - start) * 1000)
            await asyncio.sleep(interval)
    print(f"{statistics.median(samples):.4f}")


async def hold(url: str, connections: int, ramp: float, hold_s: float, ping_s: float) -> None:
    opened, failed, first_error = [], 0, None
    stop = asyncio.Event()

    async def one(index: int) -> None:
        nonlocal failed, first_error
        await asyncio.sleep(ramp * index / connections)
        try:
            async with connect(url, ping_interval=ping_s, ping_timeout=ping_s, open_timeout=30, max_queue=4) as ws:
                opened.append(ws)
                await stop.wait()
        except Exception as error:  # noqa: BLE001 - counted and reported
            failed += 1
            if first_error is None:
                first_error = f"{type(error).__name__}: {error}"

    tasks = [asyncio.create_task(one(i)) for i in range(connections)]
    await asyncio.sleep(ramp + hold_s)
    up = sum(1 for ws in opened if ws.state.name == "OPEN")
    stop.set()
    await asyncio.wait(tasks, timeout=30)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"opened": len(opened), "upAtEnd": up, "failed": failed, "firstError": first_error,
                      "cpuSeconds": usage.ru_utime + usage.ru_stime, "systemSeconds": usage.ru_stime, "maxRssKiB": usage.ru_maxrss}))


if __name__ == "__main__":
    mode, url = sys.argv[1], sys.argv[2]
    if mode == "rtt":
        asyncio.run(rtt(url, int(sys.argv[3]), float(sys.argv[4])))
    else:
        asyncio.run(hold(url, int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])))
