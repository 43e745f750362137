#!/usr/bin/env python3
"""A GraphQL server on loopback for the GraphQL probe's tests: ariadne (PyPI) served by hypercorn.

Usage: graphql_peer.py PORT LOG. Serves POST /graphql on 127.0.0.1:PORT with this schema:

    user(id: ID!): User          answers {id, name} ("Ada" for every id)
    seen: String!                the variables this request carried, as JSON (sorted keys)
    broken: String!              its resolver raises "database is down": a non-null field, so
                                 data is null and errors holds the message (a GraphQL error)
    flaky: String                its resolver raises "cache miss for flaky": a nullable field,
                                 so data holds flaky: null beside the error (partial data)
    secret(token: String!): String   raises "token <token> is not valid" (a message holding a secret)
    big(bytes: Int!): String     a string of that many 'x'

and GET or POST /text: 200 text/plain "not json", GET or POST /array: 200 application/json "[1,2]".
Each GraphQL request's Content-Type, Accept, operationName and body keys are appended to LOG as a
JSON line. The listening socket is bound before "ready" is printed (hypercorn takes it over by fd);
runs until killed.
"""
import asyncio
import json
import socket
import sys

from ariadne import QueryType, make_executable_schema
from ariadne.asgi import GraphQL
from hypercorn.asyncio import serve
from hypercorn.config import Config

TYPE_DEFS = """
type User { id: ID!, name: String! }
type Query {
  user(id: ID!): User
  seen: String!
  broken: String!
  flaky: String
  secret(token: String!): String
  big(bytes: Int!): String
}
"""

query = QueryType()


@query.field("user")
def resolve_user(_, info, id):
    return {"id": id, "name": "Ada"}


@query.field("seen")
def resolve_seen(_, info):
    return json.dumps(info.variable_values, sort_keys=True)


@query.field("broken")
def resolve_broken(_, info):
    raise RuntimeError("database is down")


@query.field("flaky")
def resolve_flaky(_, info):
    raise RuntimeError("cache miss for flaky")


@query.field("secret")
def resolve_secret(_, info, token):
    raise RuntimeError(f"token {token} is not valid")


@query.field("big")
def resolve_big(_, info, bytes):
    return "x" * max(0, min(bytes, 16 << 20))


graphql = GraphQL(make_executable_schema(TYPE_DEFS, query), debug=False)


def make_app(log_path):
    async def app(scope, receive, send):
        if scope["type"] != "http":
            return await graphql(scope, receive, send)
        path = scope["path"]
        if path in ("/text", "/array"):
            body, kind = (b"not json", b"text/plain") if path == "/text" else (b"[1,2]", b"application/json")
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", kind), (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        # Read the body once to log it, then hand it on to ariadne.
        chunks = []
        more = True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        raw = b"".join(chunks)
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        try:
            parsed = json.loads(raw) if raw else {}
        except ValueError:
            parsed = {}
        with open(log_path, "a") as log:
            log.write(json.dumps({
                "method": scope["method"], "contentType": headers.get("content-type"), "accept": headers.get("accept"),
                "keys": sorted(parsed) if isinstance(parsed, dict) else None,
                "operationName": parsed.get("operationName") if isinstance(parsed, dict) else None,
                "variables": parsed.get("variables") if isinstance(parsed, dict) else None,
            }) + "\n")
        sent = False

        async def replay():
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": raw, "more_body": False}

        return await graphql(scope, replay, send)
    return app


def main():
    port, log_path = int(sys.argv[1]), sys.argv[2]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(128)
    listener.set_inheritable(True)
    config = Config()
    config.bind = [f"fd://{listener.fileno()}"]
    config.accesslog = None
    config.errorlog = None
    print("ready", flush=True)
    asyncio.run(serve(make_app(log_path), config))


if __name__ == "__main__":
    main()
