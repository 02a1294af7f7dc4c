// The official TypeScript SDK's OAuth client against a live Atrium workspace:
// discovery, dynamic registration, authorization (a headless person signs in and allows),
// code exchange, then a refresh. Prints one JSON object for the Python test to judge.
//
//   node oauth_flow.mjs <base_url> <email> <password>
//
// When the MCP endpoint answers (401 with its challenge), the script also connects the SDK's
// Client through its Streamable HTTP transport with the token, and lists the tools.
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [base, email, password] = process.argv.slice(2);
const serverUrl = new URL("/api/mcp", base);
const REDIRECT_URL = "http://127.0.0.1:9/callback";

// A person with a browser, without the browser: follows the authorization URL, signs in on the
// sign-in page when sent there, and answers the consent form. Returns the redirect to the client.
async function consent(authorizationUrl) {
  const jar = new Map();
  const send = async (url, init = {}) => {
    const headers = { ...(init.headers || {}) };
    if (jar.size) headers.cookie = [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
    const response = await fetch(url, { ...init, headers, redirect: "manual" });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const at = pair.indexOf("=");
      jar.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
    }
    return response;
  };
  const form = (fields) => ({
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });

  let response = await send(authorizationUrl);
  if (response.status === 302 && new URL(response.headers.get("location"), base).pathname === "/accounts/sign-in/") {
    const next = new URL(response.headers.get("location"), base).searchParams.get("next");
    await send(new URL("/accounts/sign-in/", base));
    const signedIn = await send(
      new URL("/accounts/sign-in/", base),
      form({ username: email, password, next, csrfmiddlewaretoken: jar.get("atrium_csrf") }),
    );
    if (signedIn.status !== 302) throw new Error(`sign-in refused: ${signedIn.status}`);
    response = await send(new URL(signedIn.headers.get("location"), base));
  }
  if (response.status === 302) return new URL(response.headers.get("location"));
  const page = await response.text();
  if (response.status !== 200) throw new Error(`authorization page ${response.status}: ${page.slice(0, 300)}`);
  const start = page.search(/<form[^>]*class="[^"]*\bconsent-form\b/);
  if (start < 0) throw new Error("no consent form on the authorization page");
  const consentForm = page.slice(start);
  const fields = {};
  for (const match of consentForm.matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)) {
    fields[match[1]] = match[2].replaceAll("&amp;", "&").replaceAll("&quot;", '"').replaceAll("&#x27;", "'");
  }
  fields.allow = "on";
  const answered = await send(authorizationUrl, form(fields));
  if (answered.status !== 302) throw new Error(`consent answer ${answered.status}`);
  return new URL(answered.headers.get("location"));
}

class Provider {
  constructor() {
    this.saved = { tokens: [] };
  }
  get redirectUrl() {
    return REDIRECT_URL;
  }
  get clientMetadata() {
    return {
      client_name: "Interop client (TypeScript SDK)",
      redirect_uris: [REDIRECT_URL],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state() {
    this.sentState = crypto.randomUUID();
    return this.sentState;
  }
  clientInformation() {
    return this.saved.client;
  }
  saveClientInformation(information) {
    this.saved.client = information;
  }
  tokens() {
    return this.saved.tokens.at(-1);
  }
  saveTokens(tokens) {
    this.saved.tokens.push(tokens);
  }
  saveCodeVerifier(verifier) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  async redirectToAuthorization(url) {
    this.authorizationUrl = url.toString();
    this.redirect = await consent(url);
  }
}

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "probe", version: "0" } },
};
const probe = await fetch(serverUrl, {
  method: "POST",
  headers: {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-06-18",
  },
  body: JSON.stringify(initialize),
});

const provider = new Provider();
const steps = [];
steps.push(await auth(provider, { serverUrl, scope: "mcp offline_access" }));
const redirect = provider.redirect;
if (redirect.searchParams.get("state") !== provider.sentState) throw new Error("state mismatch");
steps.push(await auth(provider, { serverUrl, authorizationCode: redirect.searchParams.get("code") }));
steps.push(await auth(provider, { serverUrl })); // holds a refresh token: refreshes

const client = new Client({ name: "interop", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider }));
const tools = await client.listTools();
const mcp = { serverName: client.getServerVersion()?.name, tools: tools.tools.length };
await client.close();

console.log(
  JSON.stringify({
    probe: { status: probe.status, challenge: probe.headers.get("www-authenticate") },
    steps,
    authorizationUrl: provider.authorizationUrl,
    redirect: Object.fromEntries(redirect.searchParams),
    client: provider.saved.client,
    tokens: provider.saved.tokens,
    mcp,
  }),
);
