// Whether a failure is the chain node (or a server in front of it) not answering: a refused
// or cut connection, or no answer within the deadline (node's, fetch's or viem's error, at any depth of `cause`). Used where a
// stopped Anvil must be named as such rather than surface as a bare socket error.

// FAKEX_NODE_NOT_ANSWERING: a node that took the connection but did not answer within the deadline (anvil-rpc.ts).
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ENOTCONN", "UND_ERR_SOCKET", "FAKEX_NODE_NOT_ANSWERING"]);

export function isNodeUnreachable(e: unknown): boolean {
  for (let x = e, depth = 0; x instanceof Error && depth < 8; x = x.cause, depth++) {
    const code = (x as { code?: unknown }).code;
    if (typeof code === "string" && SOCKET_CODES.has(code)) return true;
    if (x.name === "HttpRequestError" || (x instanceof TypeError && x.message === "fetch failed")) return true;
  }
  return false;
}
