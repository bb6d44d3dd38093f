// The few lines of HTTP a downstream test suite writes for itself: JSON in,
// JSON out, against the base URL (and the control URL) the fixture hands over.
import type { FakeExchange } from "fakex/fixtures";

export interface Reply {
  status: number;
  body: any;
}

async function call(url: string, method: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await fetch(url, {
    method,
    headers: { "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

export function client(exchange: FakeExchange, auth?: string) {
  const headers: Record<string, string> = auth ? { authorization: auth } : {};
  return {
    get: (path: string) => call(`${exchange.baseUrl}${path}`, "GET", undefined, headers),
    post: (path: string, body: unknown) => call(`${exchange.baseUrl}${path}`, "POST", body, headers),
    /** The fake's control API (/__fakex): clock, settlement, faults, health. */
    control: (method: string, path: string, body?: unknown) => call(`${exchange.controlUrl}${path}`, method, body),
  };
}

/** Create an API key the way a client does: sign ManageApiKey, POST /api-keys. */
export async function login(exchange: FakeExchange, account: FakeExchange["accounts"][number]): Promise<string> {
  const signed = await exchange.signManageApiKey(account, "create", exchange.control.now().now);
  const r = await client(exchange).post("/api-keys", { ...signed, label: "example" });
  if (r.status !== 200) throw new Error(`POST /api-keys: ${r.status} ${JSON.stringify(r.body)}`);
  return `Bearer ${r.body.api_key}:${r.body.api_secret}`;
}
