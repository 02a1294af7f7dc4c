// Preloaded with `node --import ./with-headers.mjs ...`: adds the headers of ATRIUM_TEST_HEADERS
// (a JSON object) to every fetch, for tools that connect to an MCP server but offer no way to
// pass credentials (the conformance suite). The credentials are real; only their delivery is ours.
const extra = JSON.parse(process.env.ATRIUM_TEST_HEADERS || "{}");
const originalFetch = globalThis.fetch;
globalThis.fetch = (input, init = {}) => {
  const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
  for (const [name, value] of Object.entries(extra)) {
    if (!headers.has(name)) headers.set(name, value);
  }
  return originalFetch(input, { ...init, headers });
};
