// The official TypeScript SDK client running a tool as a task (MCP 2025-11-25, experimental):
// callToolStream sends a task-augmented tools/call, polls tasks/get and fetches tasks/result;
// then it lists its tasks. Usage: node mcp-task-client.mjs URL '{"Authorization": ...}' TOOL '{args}'
// -> one JSON line on stdout.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, headersJson, toolName, argumentsJson = "{}"] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: JSON.parse(headersJson || "{}") },
});
const client = new Client({ name: "atrium-tests", version: "1.0.0" });
await client.connect(transport);

const messages = [];
const stream = client.experimental.tasks.callToolStream(
  { name: toolName, arguments: JSON.parse(argumentsJson) },
  undefined,
  { task: { ttl: 60000 } },
);
for await (const message of stream) {
  messages.push(message.type === "error" ? { type: "error", error: String(message.error) } : message);
}
const listed = await client.experimental.tasks.listTasks();
const outcome = {
  protocolVersion: transport.protocolVersion,
  capabilities: client.getServerCapabilities(),
  messages,
  listed,
};
await transport.terminateSession();
await client.close();
console.log(JSON.stringify(outcome));
