"""The baseline of `bench mcp`: the official MCP Python SDK's own server (MCPServer, Streamable
HTTP, stateful sessions, JSON responses: its fastest mode) under uvicorn, serving an equivalent
`getContact`: in one transaction it runs the very SQL statements Atrium's getContact runs (the
contact, its shares, key contacts and open duplicates; recorded by bench/mcp.py from a real call)
and returns the contact; and `describeTool`, which answers the same description of getContact
that Atrium's gives (no database). No credential, no workspace routing, no permission check, no ORM, no
audit: the SDK's cost and the same database work.

    python -m bench.mcp_sdk_server --port 8123 --database-url postgres://... --schema bench \
        --statements statements.json --description description.json
"""

import argparse
import asyncio
import json
import logging
from typing import Any

import psycopg
import uvicorn
from mcp.server.mcpserver import MCPServer


def build(
    database_url: str, schema: str, statements: list[str], description: dict[str, Any], connections: int = 4
) -> Any:
    server = MCPServer("SDK baseline")
    pool: asyncio.Queue = asyncio.Queue()
    opened: list[psycopg.AsyncConnection] = []

    async def connection() -> psycopg.AsyncConnection:
        if len(opened) < connections and pool.empty():
            conn = await psycopg.AsyncConnection.connect(database_url, autocommit=True)
            await conn.execute(f'SET search_path = "{schema}"')
            opened.append(conn)
            return conn
        return await pool.get()

    @server.tool()
    async def getContact(contactId: int) -> dict[str, Any]:
        """Fetch one contact by id, with its shares, key contacts and open duplicates."""
        conn = await connection()
        try:
            results = []
            async with conn.transaction():
                for statement in statements:
                    cursor = await conn.execute(statement)
                    names = [column.name for column in cursor.description or []]
                    results.append((names, await cursor.fetchall()))
        finally:
            pool.put_nowait(conn)
        # The contact's own row (joined tables repeat column names: the first of each is its own).
        names, rows = results[0]
        if not rows or rows[0][0] != contactId:
            raise ValueError("Not found")
        contact: dict[str, Any] = {}
        for name, value in zip(names, rows[0], strict=True):
            contact.setdefault(name, value)
        return {"contact": contact, "related": [len(found) for _names, found in results[1:]]}

    @server.tool()
    async def describeTool(name: str) -> dict[str, Any]:
        """Show one tool's full definition (the same answer Atrium's describeTool gives)."""
        if name != description.get("name"):
            raise ValueError("Not found")
        return description

    return server.streamable_http_app(json_response=True, streamable_http_path="/mcp", max_sessions=None)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.mcp_sdk_server")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--schema", required=True)
    parser.add_argument("--statements", required=True, help="a JSON list of SQL statements")
    parser.add_argument("--description", required=True, help="describeTool's answer, as JSON")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("mcp").setLevel(logging.WARNING)
    with open(args.statements) as file:
        statements = json.load(file)
    with open(args.description) as file:
        description = json.load(file)
    app = build(args.database_url, args.schema, statements, description)
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
