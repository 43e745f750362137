#!/usr/bin/env python3
"""GraphQL subscriptions over WebSocket (graphql-transport-ws) on loopback for the soak's tests.

Usage:
  graphql_ws_peer.py ariadne PORT LOG   ariadne's GraphQLTransportWSHandler under hypercorn, /graphql:
      tick(every: Int!, count: Int): Tick!   a Tick {n, sent} every `every` ms (sent: the server's
                                             time.monotonic() in ms when it yields); completes after
                                             `count` ticks when given
      boom(after: Int!, token: String): Int! yields 1..after, then raises "sensor failed for token <token>"
                                             (ariadne sends it as a next with errors, then complete)
    Every protocol ping the server answers, every connection_init, subscribe and tick is appended to
    LOG as a JSON line ({"event": "ping"|"init"|"subscribe"|"tick", "t": monotonic seconds, ...}).
  graphql_ws_peer.py hostile PORT MODE  a `websockets` server that breaks the protocol in one way:
      nosubprotocol  accepts the upgrade without choosing graphql-transport-ws
      noack          chooses it, reads connection_init, never answers
      notjson        acks, then sends a text message that is not JSON
      unknowntype    acks, then sends {"type": "bogus"}
      oversized      acks, then sends a 5 MiB next message
      close4409      acks, then closes with 4409 "Subscriber for 1 already exists" on subscribe
    It prints "close CODE" when it sees the client's close frame.
The listening socket is bound before "ready" is printed; runs until killed.
"""
import asyncio
import json
import socket
import sys
import time


def bind(port):
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    return listener


def run_ariadne(port, log_path):
    from ariadne import SubscriptionType, make_executable_schema, QueryType
    from ariadne.asgi import GraphQL
    from ariadne.asgi.handlers import GraphQLTransportWSHandler
    from hypercorn.asyncio import serve
    from hypercorn.config import Config

    type_defs = """
    type Query { hello: String! }
    type Tick { n: Int!, sent: Float! }
    type Subscription {
      tick(every: Int!, count: Int): Tick!
      boom(after: Int!, token: String): Int!
    }
    """
    query = QueryType()
    subscription = SubscriptionType()
    log = open(log_path, "a", buffering=1)

    def note(event, **extra):
        log.write(json.dumps({"event": event, "t": time.monotonic(), **extra}) + "\n")

    @subscription.source("tick")
    async def tick_source(_, info, every, count=None):
        n = 0
        while count is None or n < count:
            await asyncio.sleep(max(1, every) / 1000)
            n += 1
            note("tick", n=n)
            yield {"n": n, "sent": time.monotonic() * 1000}

    @subscription.field("tick")
    def tick_field(value, info, every, count=None):
        return value

    @subscription.source("boom")
    async def boom_source(_, info, after, token=None):
        for n in range(1, after + 1):
            await asyncio.sleep(0.05)
            yield n
        raise RuntimeError(f"sensor failed for token {token}")

    @subscription.field("boom")
    def boom_field(value, info, after, token=None):
        return value

    class LoggingHandler(GraphQLTransportWSHandler):
        async def handle_websocket_ping_message(self, websocket, client_context):
            note("ping")
            await super().handle_websocket_ping_message(websocket, client_context)

        async def handle_websocket_connection_init_message(self, websocket, message, client_context):
            note("init")
            await super().handle_websocket_connection_init_message(websocket, message, client_context)

        async def handle_websocket_subscribe(self, websocket, data, operation_id, client_context):
            note("subscribe", id=operation_id, operationName=(data or {}).get("operationName"), variables=(data or {}).get("variables"))
            await super().handle_websocket_subscribe(websocket, data, operation_id, client_context)

    schema = make_executable_schema(type_defs, query, subscription)
    app = GraphQL(schema, websocket_handler=LoggingHandler())
    listener = bind(port)
    config = Config()
    config.bind = [f"fd://{listener.fileno()}"]
    config.websocket_ping_interval = None
    print("ready", flush=True)
    asyncio.run(serve(app, config))


def run_hostile(port, mode):
    import websockets
    from websockets.asyncio.server import serve

    async def handler(ws):
        try:
            if mode == "nosubprotocol":
                await ws.wait_closed()
                return
            await ws.recv()  # connection_init
            if mode == "noack":
                await ws.wait_closed()
                return
            await ws.send(json.dumps({"type": "connection_ack"}))
            subscribe = json.loads(await ws.recv())
            if mode == "notjson":
                await ws.send("this is not json {")
            elif mode == "unknowntype":
                await ws.send(json.dumps({"type": "bogus", "id": subscribe.get("id")}))
            elif mode == "oversized":
                await ws.send(json.dumps({"type": "next", "id": subscribe.get("id"), "payload": {"data": {"x": "y" * (5 << 20)}}}))
            elif mode == "close4409":
                await ws.close(4409, "Subscriber for 1 already exists")
                return
            await ws.wait_closed()
        except websockets.ConnectionClosed:
            pass
        finally:
            received = ws.protocol.close_rcvd
            code = received.code if received is not None else None
            print(f"close {code}", flush=True)

    async def main():
        listener = bind(port)
        chosen = None if mode == "nosubprotocol" else ["graphql-transport-ws"]
        kwargs = {"max_size": 16 << 20, "ping_interval": None}
        if chosen:
            kwargs["subprotocols"] = chosen
        async with serve(handler, sock=listener, **kwargs):
            print("ready", flush=True)
            await asyncio.Future()

    asyncio.run(main())


if __name__ == "__main__":
    if sys.argv[1] == "ariadne":
        run_ariadne(int(sys.argv[2]), sys.argv[3])
    else:
        run_hostile(int(sys.argv[2]), sys.argv[3])
