// HTTP test harness for the trading routes: an in-memory exchange behind the full
// app (createMemoryExchange), funded test wallets with real keys, and clients that
// sign the way a real client does: POST /orders/preview → sign eip712_order with
// viem → POST /orders.

import request from "supertest";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { ANVIL_KEYS } from "../../fixtures/accounts.ts";
import { CANCEL_ORDER_TYPE, CANCEL_VL_BATCH_TYPE, ORDER_TYPE, exchangeDomain, type Address, type Hex } from "../../sim/core/typed-data.ts";
import { encodeUuidInt, groupIdOf, standaloneUuidInt } from "../../sim/core/uuid-int.ts";
import { Rng } from "../../sim/core/rng.ts";
import { createMemoryExchange, MEMORY_EXCHANGE_DEFAULTS, type MemoryExchangeOptions } from "../../sim/http/exchange-app.ts";

export const alice = privateKeyToAccount(ANVIL_KEYS[2]);
export const bob = privateKeyToAccount(ANVIL_KEYS[3]);
export const carol = privateKeyToAccount(ANVIL_KEYS[4]);
export const ALICE = alice.address.toLowerCase() as Address;
export const BOB = bob.address.toLowerCase() as Address;
export const CAROL = carol.address.toLowerCase() as Address;

export const EXECUTOR = MEMORY_EXCHANGE_DEFAULTS.executorId;
export const DOMAIN = exchangeDomain(MEMORY_EXCHANGE_DEFAULTS.domainName, MEMORY_EXCHANGE_DEFAULTS.chainId, MEMORY_EXCHANGE_DEFAULTS.exchangeAddress as Address);
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const RAW = /^(0|[1-9][0-9]*)$/;
export const DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]*[1-9])?$/;

/** Plenty of every token, so only tests that want INSUFFICIENT_EQUITY hit it. */
const FUNDS: [string, bigint][] = [
  ["EURC", 1_000_000n * 10n ** 6n],
  ["USDC", 1_000_000n * 10n ** 6n],
  ["GBPT", 1_000_000n * 10n ** 18n],
  ["JPYS", 100_000_000n * 10n ** 2n],
];

export function exchange({ unfunded, ...o }: MemoryExchangeOptions & { unfunded?: boolean } = {}) {
  const ex = createMemoryExchange({ logger: { error: () => undefined }, ...o });
  if (!unfunded) for (const owner of [ALICE, BOB]) for (const [sym, raw] of FUNDS) ex.fund(owner, sym, raw);
  const ids = new Rng("http-order-ids");
  return { ...ex, ids, newId: () => ids.uuid4() };
}
export type Ex = ReturnType<typeof exchange>;

export interface OrderFields {
  side?: "bid" | "ask";
  amount?: string;
  price?: string;
  symbol?: string;
  orderId?: string;
  uuidInt?: string;
  expiration?: number;
  owner?: string;
}

/** A POST /orders body without signature (defaults: ask 10 EURC at 1.08 USDC). */
export function orderBody(ex: Ex, account: PrivateKeyAccount, f: OrderFields = {}): Record<string, unknown> {
  const m = ex.registry.marketBySymbol(f.symbol ?? "EURC/USDC")!;
  const orderId = f.orderId ?? ex.newId();
  return {
    owner_address: f.owner ?? account.address.toLowerCase(),
    side: f.side ?? "ask",
    amount: f.amount ?? "10",
    price: f.price ?? "1.08",
    order_type: "limit",
    from_address: m.base,
    to_address: m.quote,
    order_id: orderId,
    uuid_int: f.uuidInt ?? standaloneUuidInt(orderId, EXECUTOR).toString(),
    expiration: f.expiration ?? ex.clock.nowSec() + 3600,
  };
}

/** Sign the Order the server builds, taken from POST /orders/preview (the documented client flow). */
export async function signViaPreview(ex: Ex, account: PrivateKeyAccount, body: Record<string, unknown>): Promise<Hex> {
  const p = await request(ex.app).post("/api/v1/orders/preview").send(body);
  if (p.status !== 200) throw new Error(`preview failed: ${p.status} ${JSON.stringify(p.body)}`);
  const o = p.body.eip712_order as Record<string, string>;
  return account.signTypedData({
    domain: DOMAIN,
    types: { Order: ORDER_TYPE },
    primaryType: "Order",
    message: {
      user: o["user"] as Address,
      expiration: Number(o["expiration"]),
      feeBps: Number(o["feeBps"]),
      recipient: o["recipient"] as Address,
      fromToken: o["fromToken"] as Address,
      toToken: o["toToken"] as Address,
      fromAmount: BigInt(o["fromAmount"]!),
      toAmount: BigInt(o["toAmount"]!),
      initialDepositAmount: BigInt(o["initialDepositAmount"]!),
      uuid: BigInt(o["uuid"]!),
    },
  });
}

export async function signedOrder(ex: Ex, account: PrivateKeyAccount, f: OrderFields = {}): Promise<Record<string, unknown>> {
  const body = orderBody(ex, account, f);
  return { ...body, signature: await signViaPreview(ex, account, body) };
}

export function postOrder(ex: Ex, body: unknown) {
  return request(ex.app).post("/api/v1/orders").send(body as object);
}

/** Place a signed order and return its id (throws unless 201). */
export async function place(ex: Ex, account: PrivateKeyAccount, f: OrderFields = {}): Promise<string> {
  const res = await postOrder(ex, await signedOrder(ex, account, f));
  if (res.status !== 201) throw new Error(`place failed: ${res.status} ${JSON.stringify(res.body)}`);
  // Rate limits count per virtual second; tests that place many orders step the clock.
  ex.clock.advanceSec(1);
  return res.body.order_id as string;
}

export function signCancel(account: PrivateKeyAccount, uuidInt: string | bigint): Promise<Hex> {
  return account.signTypedData({
    domain: DOMAIN,
    types: { CancelOrder: CANCEL_ORDER_TYPE },
    primaryType: "CancelOrder",
    message: { owner: account.address, orderId: BigInt(uuidInt) },
  });
}

export function signVlCancel(account: PrivateKeyAccount, vlBatchId: string): Promise<Hex> {
  return account.signTypedData({
    domain: DOMAIN,
    types: { CancelVLBatch: CANCEL_VL_BATCH_TYPE },
    primaryType: "CancelVLBatch",
    message: { owner: account.address, vlBatchId },
  });
}

/** VL legs: leg 0's order id fixes the group, leg ids follow array order; each leg signed. */
export async function vlLegs(ex: Ex, account: PrivateKeyAccount, legs: OrderFields[]): Promise<Record<string, unknown>[]> {
  const ids = legs.map((l) => l.orderId ?? ex.newId());
  const group = groupIdOf(ids[0]!);
  const out: Record<string, unknown>[] = [];
  for (const [i, l] of legs.entries()) {
    const uuidInt = l.uuidInt ?? encodeUuidInt({ executorId: EXECUTOR, orderId: ids[i]!, groupId: group, legId: i }).toString();
    const body = orderBody(ex, account, { ...l, orderId: ids[i]!, uuidInt });
    // Preview takes the leg's own uuid_int (leg >= 1 included), as a client building a batch sends it.
    const signature = await signViaPreview(ex, account, body);
    out.push({ ...body, signature });
  }
  return out;
}

/** A bearer header for a fresh API key of `owner` (created straight in the store). */
export function apiKeyFor(ex: Ex, owner: Address): string {
  // The store's create() wants a verified ManageApiKey; tests of key management live
  // in api-keys.test.ts, here we only need a working key.
  const created = ex.apiKeys.create({ owner, action: "create", timestamp: ex.clock.nowSec(), signature: `0x${ex.ids.hex(65)}` }, "test");
  return `Bearer ${created.api_key}:${created.api_secret}`;
}
