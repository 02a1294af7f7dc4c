"""The baseline of `bench mcp`: the official MCP Python SDK's own server (MCPServer, Streamable
HTTP, stateful sessions, JSON responses: its fastest mode) under uvicorn, serving a `getContact`
tool that reads the same contact row from the same PostgreSQL. No credential, no workspace
routing, no permission check, no audit: the SDK's cost alone.

    python -m bench.mcp_sdk_server --port 8123 --database-url postgres://... --schema bench
"""

import argparse
import asyncio
from typing import Any

import psycopg
import uvicorn
from mcp.server.mcpserver import MCPServer
from psycopg.rows import dict_row

COLUMNS = (
    "id, kind, first_name, last_name, organisation_name, email, phone, job_title, city, "
    "country, lifecycle_stage"
)


def build(database_url: str, schema: str, connections: int = 4) -> Any:
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
        """Fetch one contact by id."""
        conn = await connection()
        try:
            cursor = await conn.execute(
                f"SELECT {COLUMNS} FROM contacts_contact WHERE id = %s AND deleted_at IS NULL",  # noqa: S608
                [contactId],
            )
            row = await cursor.fetchone()
        finally:
            pool.put_nowait(conn)
        if row is None:
            raise ValueError("Not found")
        return row

    return server.streamable_http_app(json_response=True, streamable_http_path="/mcp", max_sessions=None)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.mcp_sdk_server")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--schema", required=True)
    args = parser.parse_args()
    app = build(args.database_url, args.schema)
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
