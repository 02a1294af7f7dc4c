"""The baseline of `bench mcp`: the official MCP Python SDK's own server (MCPServer, Streamable
HTTP, stateful sessions, JSON responses: its fastest mode) under uvicorn, serving an equivalent
`getContact`: in one transaction it runs the very SQL statements Atrium's getContact runs (the
contact, its shares, key contacts and open duplicates; recorded by bench/mcp.py from a real call)
and returns the contact. No credential, no workspace routing, no permission check, no ORM, no
audit: the SDK's cost and the same database work.

    python -m bench.mcp_sdk_server --port 8123 --database-url postgres://... --schema bench \
        --statements statements.json
"""

import argparse
import asyncio
import json
import logging
from typing import Any

import psycopg
import uvicorn
from mcp.server.mcpserver import MCPServer
from psycopg.rows import dict_row


def build(database_url: str, schema: str, statements: list[str], connections: int = 4) -> Any:
    server = MCPServer("SDK baseline")
    pool: asyncio.Queue = asyncio.Queue()
    opened: list[psycopg.AsyncConnection] = []

    async def connection() -> psycopg.AsyncConnection:
        if len(opened) < connections and pool.empty():
            conn = await psycopg.AsyncConnection.connect(database_url, autocommit=True, row_factory=dict_row)
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
                    results.append(await cursor.fetchall())
        finally:
            pool.put_nowait(conn)
        if not results or not results[0] or results[0][0]["id"] != contactId:
            raise ValueError("Not found")
        return {"contact": results[0][0], "related": [len(rows) for rows in results[1:]]}

    return server.streamable_http_app(json_response=True, streamable_http_path="/mcp", max_sessions=None)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.mcp_sdk_server")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--schema", required=True)
    parser.add_argument("--statements", required=True, help="a JSON list of SQL statements")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("mcp").setLevel(logging.WARNING)
    with open(args.statements) as file:
        statements = json.load(file)
    app = build(args.database_url, args.schema, statements)
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
