// In a Chromium page: the exchange API with CORS, an API key signed with viem in the page,
// the chain through rpc_url, and the control API through the browser command (the page
// itself is refused, and reads why).
import { createPublicClient, http, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { expect, inject, test } from "vitest";
import { commands } from "vitest/browser";

const { id, baseUrl, rpcUrl, controlUrl } = (globalThis as { fakex?: { id: string; baseUrl: string; rpcUrl: string; controlUrl: string } }).fakex!;
const account = privateKeyToAccount(inject("fakexAccount").private_key as Hex);

async function getJson(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any; requestId: string | null }> {
  const res = await fetch(`${baseUrl}${path}`, { headers });
  return { status: res.status, body: await res.json(), requestId: res.headers.get("x-request-id") };
}

test("the page reads the exchange API, its errors as Node reads them, and the request id", async () => {
  console.log(`pool id of this file: ${id}`);
  const markets = await getJson("/markets");
  expect(markets.status).toBe(200);
  expect(markets.body.markets.length).toBeGreaterThan(0);
  expect(markets.requestId).toMatch(/^r\d+$/);
  // A refused preview: the page reads the status and body Node reads for the same request.
  const init = { method: "POST", headers: { "content-type": "application/json" }, body: '{"side":"bid"}' };
  const refused = await fetch(`${baseUrl}/orders/preview`, init);
  expect(refused.headers.get("x-request-id")).toMatch(/^r\d+$/);
  const fromNode = await commands.nodeFetch(`${baseUrl}/orders/preview`, init);
  expect(refused.status).toBeGreaterThanOrEqual(400);
  expect({ status: refused.status, body: await refused.text() }).toEqual(fromNode);
});

test("the page signs ManageApiKey with viem, creates a key and reads its balances with it", async () => {
  const { body: config } = await getJson("/config");
  const { body: time } = await getJson("/system/time");
  const signature = await account.signTypedData({
    domain: config.eip712_domain,
    types: { ManageApiKey: [{ name: "owner", type: "address" }, { name: "action", type: "string" }, { name: "timestamp", type: "uint256" }] },
    primaryType: "ManageApiKey",
    message: { owner: account.address, action: "create", timestamp: BigInt(time.timestamp) },
  });
  const created = await fetch(`${baseUrl}/api-keys`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ owner_address: account.address.toLowerCase(), action: "create", timestamp: time.timestamp, signature, label: "page" }),
  });
  expect(created.status).toBe(200);
  const key = (await created.json()) as { api_key: string; api_secret: string };
  const balances = await getJson(`/balances?owner_address=${account.address.toLowerCase()}`, { authorization: `Bearer ${key.api_key}:${key.api_secret}` });
  expect(balances.status).toBe(200);
  expect(Array.isArray(balances.body.balances)).toBe(true);
});

test("the page reaches the chain through rpc_url", async () => {
  const { body: config } = await getJson("/config");
  const chain = createPublicClient({ transport: http(rpcUrl) });
  expect(await chain.getChainId()).toBe(config.chain_id);
});

let startTime = 0;
test("the control API: refused to the page with its reason, reached through the browser command", async () => {
  startTime = (await getJson("/system/time")).body.timestamp;
  const fromPage = await fetch(`${controlUrl}/clock/advance`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"seconds":3600}' });
  expect(fromPage.status).toBe(403);
  expect(((await fromPage.json()) as { detail: string }).detail).toContain("through a vitest browser command");
  expect((await getJson("/system/time")).body.timestamp).toBe(startTime);
  const advanced = await commands.fakexControl(`${controlUrl}/clock/advance`, { seconds: 3600 });
  expect(advanced.status).toBe(200);
  expect((await getJson("/system/time")).body.timestamp).toBe(startTime + 3600);
});

test("each test starts from the id's seeded state (the reset before it, through the command)", async () => {
  expect(startTime).toBeGreaterThan(0);
  expect((await getJson("/system/time")).body.timestamp).toBe(startTime);
});
