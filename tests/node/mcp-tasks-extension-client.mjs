// The official clients on the 2026-07-28 tasks extension (io.modelcontextprotocol/tasks): the
// TypeScript SDK's v2 client, pinned to 2026-07-28, and the ext-tasks requester session over it.
// It calls a tool; the server may make the call a task, which the session then drives (tasks/get,
// answering inputRequests with tasks/update) to its outcome.
// Usage: node mcp-tasks-extension-client.mjs URL '{"Authorization": ...}' TOOL '{args}' ['{answer}']
// `answer` is the content given to every elicitation (the client then declares elicitation);
// without it the client declares none. -> one JSON line on stdout.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createTaskSessionFromClient } from "@modelcontextprotocol/ext-tasks/client";

const [url, headersJson, toolName, argumentsJson = "{}", answerJson] = process.argv.slice(2);
const headers = JSON.parse(headersJson || "{}");
const answer = answerJson === undefined ? undefined : JSON.parse(answerJson);
const VERSION = "2026-07-28";
const clientInfo = { name: "atrium-tests", version: "1.0.0" };
const clientCapabilities = answer === undefined ? {} : { elicitation: { form: {} } };

const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
const client = new Client(clientInfo, {
  capabilities: clientCapabilities,
  versionNegotiation: { mode: { pin: VERSION } },
});
await client.connect(transport);

// The host's raw request path, which the package needs for the extension's wire shapes (the SDK
// client's own codecs do not take them): one POST per request, with the headers 2026-07-28 wants
// mirrored from the body (the package adds Mcp-Name = taskId to the task requests).
const sent = [];
let nextId = 1;
async function rawDispatch(request, options = {}) {
  const params = request.params ?? {};
  const routing = { ...(options.context?.headers ?? {}) };
  if (request.method === "tools/call") routing["Mcp-Name"] = params.name;
  sent.push(request.method);
  const response = await fetch(url, {
    method: "POST",
    headers: {
      ...headers,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": VERSION,
      "Mcp-Method": request.method,
      ...routing,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, ...request }),
    signal: options.signal,
  });
  const text = await response.text();
  const last = (response.headers.get("content-type") ?? "").startsWith("text/event-stream")
    ? text.split("\n").filter((line) => line.startsWith("data: ")).pop().slice(6)
    : text;
  const body = JSON.parse(last);
  return "error" in body ? { kind: "error", error: body.error } : { kind: "result", result: body.result };
}

const asked = [];
const session = createTaskSessionFromClient(client, {
  endpointId: "atrium-tests",
  rawDispatch,
  v2RequestFraming: { protocolVersion: VERSION, clientInfo, clientCapabilities },
  onInputRequest: async (request) => {
    asked.push(request);
    return { action: "accept", content: answer };
  },
});
const outcome = { era: client.getProtocolEra(), capabilities: client.getServerCapabilities(), asked, sent };
try {
  const execution = await session.callTool(toolName, JSON.parse(argumentsJson));
  outcome.kind = execution.kind;
  outcome.taskId = execution.handle?.taskId;
  const settled = await execution.settle();
  outcome.status = settled.outcome.status;
  outcome.result = settled.outcome.result;
  outcome.error = settled.outcome.error ? String(settled.outcome.error) : undefined;
} finally {
  await session.close();
  await client.close();
}
console.log(JSON.stringify(outcome));
