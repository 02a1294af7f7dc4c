// The official TypeScript SDK client running a tool as a task (MCP 2025-11-25, experimental):
// callToolStream sends a task-augmented tools/call, polls tasks/get and fetches tasks/result
// (which, while the task waits for input, carries its questions); then it lists its tasks.
// Usage: node mcp-task-client.mjs URL '{"Authorization": ...}' TOOL '{args}' ['{answer}']
// With `answer`, the client declares elicitation and accepts every question with that content.
// -> one JSON line on stdout.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [url, headersJson, toolName, argumentsJson = "{}", answerJson] = process.argv.slice(2);
const answer = answerJson === undefined ? undefined : JSON.parse(answerJson);
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: JSON.parse(headersJson || "{}") },
});
const client = new Client(
  { name: "atrium-tests", version: "1.0.0" },
  answer === undefined ? {} : { capabilities: { elicitation: { form: {} } } },
);
const asked = [];
if (answer !== undefined) {
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params);
    return { action: "accept", content: answer };
  });
}
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
  asked,
};
await transport.terminateSession();
await client.close();
console.log(JSON.stringify(outcome));
