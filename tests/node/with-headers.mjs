// Preloaded with `node --import ./with-headers.mjs ...`: adds the headers of ATRIUM_TEST_HEADERS
// (a JSON object) to every request made through fetch, undici or node:http, for tools that connect to an MCP
// server but offer no way to pass credentials (the conformance suite). The credentials are real;
// only their delivery is ours.
import http from "node:http";
import { Agent, setGlobalDispatcher } from "undici";

const extra = JSON.parse(process.env.ATRIUM_TEST_HEADERS || "{}");
const originalFetch = globalThis.fetch;
globalThis.fetch = (input, init = {}) => {
  const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
  for (const [name, value] of Object.entries(extra)) {
    if (!headers.has(name)) headers.set(name, value);
  }
  return originalFetch(input, { ...init, headers });
};

// undici's own `request` (the suite's raw HTTP checks) goes through the global dispatcher.
function withHeaders(dispatch) {
  return (options, handler) => {
    // Headers come as an object or as a flat [name, value, ...] list.
    const given = options.headers ?? {};
    const pairs = Array.isArray(given) ? [...given] : Object.entries(given).flat();
    const present = new Set(pairs.filter((_, index) => index % 2 === 0).map((name) => String(name).toLowerCase()));
    for (const [name, value] of Object.entries(extra)) {
      if (!present.has(name.toLowerCase())) pairs.push(name, value);
    }
    return dispatch({ ...options, headers: pairs }, handler);
  };
}
setGlobalDispatcher(new Agent().compose(withHeaders));

// node:http's `request` (the suite's header-validation checks write their requests with it).
const originalRequest = http.request;
http.request = function request(options, ...rest) {
  if (options && typeof options === "object" && !(options instanceof URL)) {
    const headers = { ...(options.headers ?? {}) };
    const present = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
    for (const [name, value] of Object.entries(extra)) {
      if (!present.has(name.toLowerCase())) headers[name] = value;
    }
    options = { ...options, headers };
  }
  return originalRequest.call(this, options, ...rest);
};
