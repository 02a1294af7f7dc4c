// The official TypeScript SDK client against an MCP endpoint: connect, list, call, progress.
// Usage: node mcp-client.mjs URL '{"Authorization": "Bearer ..."}'  -> one JSON line on stdout.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";

const [url, headersJson, toolName = "whoAmI", progressTool = "test_tool_with_progress"] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: JSON.parse(headersJson || "{}") },
});
const client = new Client({ name: "atrium-tests", version: "1.0.0" });
await client.connect(transport);

const tools = [];
let cursor;
do {
  const page = await client.listTools(cursor ? { cursor } : {});
  tools.push(...page.tools.map((tool) => tool.name));
  cursor = page.nextCursor;
} while (cursor);

const call = await client.callTool({ name: toolName, arguments: {} });
const progress = [];
if (progressTool && tools.includes(progressTool)) {
  await client.request(
    { method: "tools/call", params: { name: progressTool, arguments: {}, _meta: { progressToken: "ts-1" } } },
    CallToolResultSchema,
    { onprogress: (event) => progress.push(event.progress) },
  );
}
const outcome = {
  server: client.getServerVersion(),
  protocolVersion: transport.protocolVersion,
  instructions: client.getInstructions(),
  tools,
  call,
  progress,
};
await transport.terminateSession();
await client.close();
console.log(JSON.stringify(outcome));
