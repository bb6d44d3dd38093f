// Balances, permit metadata, the approve / deposit / transfer builders and their
// relay through /tx/send and /transfer/send, on a real Anvil chain: every unsigned
// transaction is signed with the trader's key, broadcast through the API, and its
// effect checked on chain and through GET /balances.
import { beforeEach, describe, expect, it } from "vitest";
import request from "supertest";
import { parseSignature, serializeCompactSignature, signatureToCompactSignature, toFunctionSelector } from "viem";
import { standaloneUuidInt } from "../../sim/core/uuid-int.ts";
import { depositCalls } from "../../fixtures/chain-tx.ts";
import { ExchangeError } from "../../sim/core/errors.ts";
import type { Address, Hex } from "../../sim/core/typed-data.ts";
import {
  allowance,
  buildApp,
  erc20Balance,
  signPermit,
  signTx,
  useFundsChain,
  TX_SHAPE,
  vaultBalance,
  walletOf,
  beforeFirstWalletRead,
  type FundsApp,
  type FundsChain,
} from "./harness.ts";

let c: FundsChain;
useFundsChain((chain) => (c = chain));

const V1 = "/api/v1";
const AMOUNT = 250_000_000n; // 250 EURC (6 decimals)

let env: FundsApp;
beforeEach(async () => {
  env = await buildApp(c);
});

const alice = () => c.traders[0]!;
const ALICE = () => alice().address.toLowerCase() as Address;
const BOB = () => c.traders[1]!.address.toLowerCase() as Address;
const EURC = () => c.tokens.EURC!;
const XCHF = () => c.tokens.XCHF!; // no permit

function post(path: string, body: unknown, trader = 0) {
  return request(env.app).post(`${V1}${path}`).set("Authorization", env.bearer[trader]!).send(body as object);
}

async function relay(path: "/tx/send" | "/transfer/send", tx: unknown, trader = 0): Promise<Hex> {
  const raw = await signTx(c.traders[trader]!, tx as never);
  const res = await post(path, { raw_tx: raw }, trader);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(Object.keys(res.body)).toEqual(["tx_hash"]);
  expect(res.body.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
  const receipt = await c.pub.waitForTransactionReceipt({ hash: res.body.tx_hash });
  expect(receipt.status).toBe("success");
  return res.body.tx_hash as Hex;
}

async function approveAndDeposit(token: Address, amount: bigint) {
  const a = await post("/approve", { token, owner: ALICE(), spender: c.vault, amount: amount.toString() });
  expect(a.status, JSON.stringify(a.body)).toBe(200);
  await relay("/tx/send", a.body.tx);
  const d = await post("/deposit", { token, owner: ALICE(), amount: amount.toString() });
  expect(d.status, JSON.stringify(d.body)).toBe(200);
  await relay("/tx/send", d.body.tx);
}

describe("POST /approve", () => {
  it("builds an EIP-1559 approve of the vault that the owner signs and /tx/send relays", async () => {
    const res = await post("/approve", { token: EURC(), owner: alice().address, spender: c.vault, amount: "123" });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["tx"]);
    expect(res.body.tx).toEqual(TX_SHAPE);
    expect(res.body.tx.to).toBe(EURC());
    expect(BigInt(res.body.tx.chainId)).toBe(BigInt(c.chainId));
    const nonce = await c.pub.getTransactionCount({ address: alice().address, blockTag: "pending" });
    expect(BigInt(res.body.tx.nonce)).toBe(BigInt(nonce));
    expect(BigInt(res.body.tx.maxFeePerGas)).toBeGreaterThanOrEqual(BigInt(res.body.tx.maxPriorityFeePerGas));
    await relay("/tx/send", res.body.tx);
    expect(await allowance(c, EURC(), ALICE(), c.vault)).toBe(123n);
  });

  it("a gas limit the node would drop the transaction for is a 400, not a hash to wait on for good", async () => {
    const res = await post("/approve", { token: EURC(), owner: ALICE(), spender: c.vault, amount: "5" });
    const nonce = await c.pub.getTransactionCount({ address: alice().address, blockTag: "pending" });
    // Under its intrinsic gas: refused before it is sent.
    const low = await post("/tx/send", { raw_tx: await signTx(alice(), { ...res.body.tx, gas: "0x5208" }) });
    expect(low.status).toBe(400);
    expect(low.body.detail).toMatch(/^raw_tx gas limit 21000 is below its intrinsic gas \d+/);
    // Above its intrinsic gas but under Prague's calldata floor (EIP-7623): Anvil would answer
    // a hash and drop the transaction at the next block; the policy refuses it first.
    const data = res.body.tx.data.slice(2) as string;
    let zeros = 0;
    for (let i = 0; i < data.length; i += 2) if (data.slice(i, i + 2) === "00") zeros++;
    const nonzero = data.length / 2 - zeros;
    const intrinsic = 21_000 + 4 * zeros + 16 * nonzero;
    const floor = 21_000 + 10 * (zeros + 4 * nonzero);
    expect(floor).toBeGreaterThan(intrinsic + 1);
    const underFloor = await post("/tx/send", { raw_tx: await signTx(alice(), { ...res.body.tx, gas: `0x${(intrinsic + 1).toString(16)}` }) });
    expect(underFloor.status).toBe(400);
    expect(underFloor.body.detail).toBe(`raw_tx gas limit ${intrinsic + 1} is below its intrinsic gas ${floor} (21000 plus its calldata, access list and authorizations, or Prague's calldata floor when more)`);
    // Nothing was spent or queued: the same nonce relays the proper transaction.
    expect(await c.pub.getTransactionCount({ address: alice().address, blockTag: "pending" })).toBe(nonce);
    await relay("/tx/send", res.body.tx);
    expect(await allowance(c, EURC(), ALICE(), c.vault)).toBe(5n);
  });

  it("accepts the router as spender", async () => {
    const res = await post("/approve", { token: EURC(), owner: ALICE(), spender: c.router, amount: "77" });
    expect(res.status).toBe(200);
    await relay("/tx/send", res.body.tx);
    expect(await allowance(c, EURC(), ALICE(), c.router)).toBe(77n);
  });

  it("400 when the spender is neither vault nor router", async () => {
    const res = await post("/approve", { token: EURC(), owner: ALICE(), spender: BOB(), amount: "1" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: `spender must be the vault (${c.vault}) or the router (${c.router})` });
  });

  it("400 for a token outside the registry", async () => {
    const res = await post("/approve", { token: c.rogue, owner: ALICE(), spender: c.vault, amount: "1" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: `token ${c.rogue} is not in the token registry` });
  });

  it("403 when owner is not the key owner; 401 without or with a bad key", async () => {
    const body = { token: EURC(), owner: BOB(), spender: c.vault, amount: "1" };
    const forbidden = await post("/approve", body);
    expect(forbidden.status).toBe(403);
    // The body's own field is named (these bodies have no owner_address).
    expect(forbidden.body).toEqual({ detail: "owner does not match the API key owner" });
    const none = await request(env.app).post(`${V1}/approve`).send(body);
    expect(none.status).toBe(401);
    expect(typeof none.body.detail).toBe("string");
    const bad = await request(env.app).post(`${V1}/approve`).set("Authorization", "Bearer fkx_nope:nope").send(body);
    expect(bad.status).toBe(401);
  });

  it.each([
    ["missing amount", { token: "EURC", owner: "x", spender: "y" }, "body.token"],
    ["amount as a number", { amount: 5 }, "body.amount"],
    ["negative amount", { amount: "-1" }, "body.amount"],
    ["decimal amount", { amount: "1.5" }, "body.amount"],
    ["amount above uint256", { amount: (1n << 256n).toString() }, "body.amount"],
    ["bad token address", { token: "0x1234" }, "body.token"],
    ["bad spender", { spender: 7 }, "body.spender"],
  ])("422 for %s", async (_name, patch, where) => {
    const res = await post("/approve", { token: EURC(), owner: ALICE(), spender: c.vault, amount: "1", ...patch });
    expect(res.status).toBe(422);
    expect(res.body.detail).toContain(where);
  });

  it("405 for GET", async () => {
    const res = await request(env.app).get(`${V1}/approve`);
    expect(res.status).toBe(405);
  });
});

describe("POST /deposit and the engine credit", () => {
  it("depositFund after an approve: vault on chain, ledger credited, GET /balances shows it", async () => {
    const walletBefore = await erc20Balance(c, EURC(), ALICE());
    await approveAndDeposit(EURC(), AMOUNT);
    expect(await vaultBalance(c, ALICE(), EURC())).toBe(AMOUNT);
    expect(await erc20Balance(c, EURC(), ALICE())).toBe(walletBefore - AMOUNT);
    // The relay synced the deposit into the engine: an order spending it is accepted.
    expect(env.engine.ledger.available(ALICE(), EURC())).toBe(AMOUNT);

    const res = await request(env.app).get(`${V1}/balances?owner_address=${ALICE()}`).set("Authorization", env.bearer[0]!);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["owner_address", "balances", "updated_at", "wallet_balance_available"]);
    expect(res.body.owner_address).toBe(ALICE());
    expect(res.body.updated_at).toBe(new Date(env.clock.nowMs()).toISOString());
    expect(res.body.wallet_balance_available).toBe(true);
    const row = res.body.balances.find((r: { symbol: string }) => r.symbol === "EURC");
    expect(row).toEqual({
      token: EURC(),
      symbol: "EURC",
      decimals: 6,
      wallet_balance: (walletBefore - AMOUNT).toString(),
      vault_available: AMOUNT.toString(),
      vault_frozen: "0",
      vault_total: AMOUNT.toString(),
      total: walletBefore.toString(),
    });
  });

  it("GET /balances with a deposit mined and synced by another request while it reads the wallets: both columns as of its own sync, the total unchanged", async () => {
    const walletBefore = await erc20Balance(c, EURC(), ALICE());
    let deposited = false;
    beforeFirstWalletRead(env.funds.reader, async () => {
      deposited = true;
      const wallet = walletOf(c, alice());
      for (const call of depositCalls({ exchange: c.exchange, vault: c.vault, token: EURC(), owner: ALICE(), amount: AMOUNT })) {
        await c.pub.waitForTransactionReceipt({ hash: await wallet.sendTransaction({ to: call.to, data: call.data }) });
      }
      // Another request's sync credits it meanwhile.
      await env.engine.syncVaultEvents();
    });
    const res = await request(env.app).get(`${V1}/balances?owner_address=${ALICE()}`).set("Authorization", env.bearer[0]!);
    expect(res.status).toBe(200);
    expect(deposited).toBe(true);
    const eurc = (body: { balances: { symbol: string }[] }) => body.balances.find((r) => r.symbol === "EURC");
    expect(eurc(res.body)).toMatchObject({ wallet_balance: walletBefore.toString(), vault_total: "0", total: walletBefore.toString() });
    // The next read sees the deposit on both sides.
    const next = await request(env.app).get(`${V1}/balances?owner_address=${ALICE()}`).set("Authorization", env.bearer[0]!);
    expect(eurc(next.body)).toMatchObject({ wallet_balance: (walletBefore - AMOUNT).toString(), vault_total: AMOUNT.toString(), total: walletBefore.toString() });
  });

  it("GET /balances when the chain went back below its sync's block before the wallet reads: it syncs and reads the wallets again, not 'wallet unknown'", async () => {
    const walletBefore = await erc20Balance(c, EURC(), ALICE());
    const back = await c.testClient.snapshot();
    await c.testClient.mine({ blocks: 5 });
    let reverted = false;
    // A restore (or an evm_revert through rpc_url) between the sync and the wallet reads.
    beforeFirstWalletRead(env.funds.reader, async () => {
      reverted = true;
      await c.testClient.revert({ id: back });
    });
    const res = await request(env.app).get(`${V1}/balances?owner_address=${ALICE()}&include_zero=true`).set("Authorization", env.bearer[0]!);
    expect(res.status).toBe(200);
    expect(reverted).toBe(true);
    expect(res.body.wallet_balance_available).toBe(true);
    expect(res.body.balances.find((r: { symbol: string }) => r.symbol === "EURC")).toMatchObject({ wallet_balance: walletBefore.toString() });
  });

  it("GET /balances with the node not answering: 200, vault columns from the ledger, wallet_balance_available false; wallets read again only when a synced block named them", async () => {
    await approveAndDeposit(EURC(), AMOUNT);
    const down = () => Promise.reject(new ExchangeError("UNAVAILABLE", 503, "wallet balance: node down"));
    const reads = (sync: "ok" | "down") => {
      let n = 0;
      env.funds.reader.walletBalance = () => (n++, down());
      if (sync === "down") env.funds.sync = down;
      return () => n;
    };
    const tokens = c.registry.tokens().length;
    for (const [sync, attempts] of [["ok", 2], ["down", 1]] as const) {
      const count = reads(sync);
      const res = await request(env.app).get(`${V1}/balances?owner_address=${ALICE()}`).set("Authorization", env.bearer[0]!);
      expect(res.status).toBe(200);
      expect(res.body.wallet_balance_available).toBe(false);
      expect(res.body.balances.find((r: { symbol: string }) => r.symbol === "EURC")).toMatchObject({ wallet_balance: "0", vault_available: AMOUNT.toString(), vault_total: AMOUNT.toString() });
      expect(count()).toBe(attempts * tokens);
    }
  });

  it("a deposit relayed and mined is visible to an order placed right after (equity)", async () => {
    const market = c.registry.market(EURC(), c.tokens.USDC!)!;
    // Spend EURC, which only the synced deposit provides: an ask when EURC is the base,
    // a bid when the canonical orientation made it the quote.
    const eurcIsBase = market.base === EURC();
    const orderId = "3f1c2a9e-8b7d-4c6e-9a5f-0e1d2c3b4a59";
    const place = () =>
      env.engine.placeOrder({
        owner_address: ALICE(),
        side: eurcIsBase ? "ask" : "bid",
        amount: "100",
        price: eurcIsBase ? "1.08" : "0.9",
        order_type: "limit",
        from_address: market.base,
        to_address: market.quote,
        order_id: orderId,
        uuid_int: standaloneUuid(orderId, env.engine.executorId),
        signature: `0x${"11".repeat(65)}`,
        expiration: env.clock.nowSec() + 3600,
      } as never);
    expect(() => place()).toThrow(/available equity/);
    await approveAndDeposit(EURC(), AMOUNT);
    expect(() => place()).not.toThrow();
    const frozen = eurcIsBase ? 100_000_000n : 90_000_000n;
    const res = await request(env.app).get(`${V1}/balances?owner_address=${ALICE()}`).set("Authorization", env.bearer[0]!);
    const row = res.body.balances.find((r: { symbol: string }) => r.symbol === "EURC");
    expect(row.vault_frozen).toBe(frozen.toString());
    expect(row.vault_available).toBe((AMOUNT - frozen).toString());
    expect(row.vault_total).toBe(AMOUNT.toString());
  });

  it("without an allowance the builder answers 400 with the revert reason (no tx that must fail)", async () => {
    const res = await post("/deposit", { token: EURC(), owner: ALICE(), amount: "5" });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^transaction would revert: /);
  });

  it.each([
    ["65-byte", (s: Hex) => s],
    ["64-byte EIP-2098", (s: Hex) => serializeCompactSignature(signatureToCompactSignature(parseSignature(s))) as Hex],
  ])("depositFundWithPermit with a %s permit signature", async (_n, form) => {
    const deadline = BigInt(env.clock.nowSec() + 3600);
    const sig = form(await signPermit(c, alice(), EURC(), AMOUNT, deadline));
    const res = await post("/deposit", { token: EURC(), owner: ALICE(), amount: AMOUNT.toString(), permit_signature: sig, permit_deadline: Number(deadline) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.tx).toEqual(TX_SHAPE);
    expect(res.body.tx.to).toBe(c.exchange);
    expect(res.body.tx.data.slice(0, 10)).toBe(toFunctionSelector("depositFundWithPermit(address,address,uint256,uint256,uint256,bytes)"));
    await relay("/tx/send", res.body.tx);
    expect(await vaultBalance(c, ALICE(), EURC())).toBe(AMOUNT);
    expect(env.engine.ledger.available(ALICE(), EURC())).toBe(AMOUNT);
  });

  it("permit_amount larger than the deposit is what the permit grants", async () => {
    const deadline = BigInt(env.clock.nowSec() + 3600);
    const sig = await signPermit(c, alice(), EURC(), AMOUNT * 2n, deadline);
    const res = await post("/deposit", {
      token: EURC(), owner: ALICE(), amount: AMOUNT.toString(), permit_signature: sig, permit_deadline: Number(deadline), permit_amount: (AMOUNT * 2n).toString(),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await relay("/tx/send", res.body.tx);
    expect(await allowance(c, EURC(), ALICE(), c.vault)).toBe(AMOUNT);
  });

  it("400 when only part of the permit fields is given", async () => {
    const sig = `0x${"ab".repeat(65)}`;
    for (const extra of [{ permit_signature: sig }, { permit_deadline: 123 }, { permit_amount: "5" }]) {
      const res = await post("/deposit", { token: EURC(), owner: ALICE(), amount: "5", ...extra });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: "missing permit fields: permit_signature and permit_deadline are both required for a permit deposit" });
    }
  });

  it("400 for a zero amount and for a token outside the registry; 403 for another owner", async () => {
    const zero = await post("/deposit", { token: EURC(), owner: ALICE(), amount: "0" });
    expect(zero.status).toBe(400);
    expect(zero.body).toEqual({ detail: "amount must be positive" });
    const rogue = await post("/deposit", { token: c.rogue, owner: ALICE(), amount: "5" });
    expect(rogue.status).toBe(400);
    expect(rogue.body).toEqual({ detail: `token ${c.rogue} is not in the token registry` });
    const other = await post("/deposit", { token: EURC(), owner: BOB(), amount: "5" });
    expect(other.status).toBe(403);
  });

  it("422 for a malformed permit signature or deadline, and for a non-JSON body", async () => {
    const short = await post("/deposit", { token: EURC(), owner: ALICE(), amount: "5", permit_signature: "0xabcd", permit_deadline: 1 });
    expect(short.status).toBe(422);
    expect(short.body.detail).toContain("body.permit_signature");
    const deadline = await post("/deposit", { token: EURC(), owner: ALICE(), amount: "5", permit_signature: `0x${"ab".repeat(65)}`, permit_deadline: -1 });
    expect(deadline.status).toBe(422);
    expect(deadline.body.detail).toContain("body.permit_deadline");
    const junk = await request(env.app).post(`${V1}/deposit`).set("Authorization", env.bearer[0]!).set("Content-Type", "application/json").send("{nope");
    expect(junk.status).toBe(422);
  });
});

function standaloneUuid(orderId: string, executorId: number): string {
  return standaloneUuidInt(orderId, executorId).toString();
}

describe("POST /transfer and /transfer/send", () => {
  it("builds an ERC-20 transfer from the owner that /transfer/send relays", async () => {
    const before = await erc20Balance(c, XCHF(), BOB());
    const res = await post("/transfer", { token: XCHF(), to: BOB(), amount: "1000", from_address: ALICE() });
    expect(res.status).toBe(200);
    expect(res.body.tx).toEqual(TX_SHAPE);
    expect(res.body.tx.to).toBe(XCHF());
    await relay("/transfer/send", res.body.tx);
    expect(await erc20Balance(c, XCHF(), BOB())).toBe(before + 1000n);
  });

  it("400 for a token outside the registry; 403 for another from_address; 422 for a bad `to`", async () => {
    const rogue = await post("/transfer", { token: c.rogue, to: BOB(), amount: "1", from_address: ALICE() });
    expect(rogue.status).toBe(400);
    expect(rogue.body).toEqual({ detail: `token ${c.rogue} is not in the token registry` });
    const other = await post("/transfer", { token: XCHF(), to: BOB(), amount: "1", from_address: BOB() });
    expect(other.status).toBe(403);
    expect(other.body).toEqual({ detail: "from_address does not match the API key owner" });
    const bad = await post("/transfer", { token: XCHF(), to: "bob", amount: "1", from_address: ALICE() });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toContain("body.to");
  });

  it("400 when the transfer would revert (more than the wallet holds)", async () => {
    const res = await post("/transfer", { token: XCHF(), to: BOB(), amount: (10n ** 40n).toString(), from_address: ALICE() });
    expect(res.status).toBe(400);
    // The token's custom error, decoded by name and arguments (not its raw selector and bytes).
    expect(res.body.detail).toMatch(/^transaction would revert: ERC20InsufficientBalance\(0x[0-9a-f]{40}, \d+, 10000000000000000000000000000000000000000\)$/);
    const toZero = await post("/transfer", { token: XCHF(), to: "0x0000000000000000000000000000000000000000", amount: "1", from_address: ALICE() });
    expect(toZero.status).toBe(400);
    expect(toZero.body).toEqual({ detail: "transaction would revert: ERC20InvalidReceiver(0x0000000000000000000000000000000000000000)" });
  });
});

describe("GET /balances", () => {
  it("include_zero=false leaves out zero tokens; true lists every registry token", async () => {
    const fresh = c.traders[2]!; // funded with every token, nothing deposited
    const owner = fresh.address.toLowerCase();
    const all = await request(env.app).get(`${V1}/balances?owner_address=${owner}&include_zero=true`).set("Authorization", env.bearer[2]!);
    expect(all.status).toBe(200);
    expect(all.body.balances.map((r: { symbol: string }) => r.symbol)).toEqual(c.registry.tokens().map((t) => t.symbol));
    expect(all.body.balances).toHaveLength(6);
    const xchfRow = all.body.balances.find((r: { symbol: string }) => r.symbol === "XCHF");
    expect(xchfRow.wallet_balance).toBe((await erc20Balance(c, XCHF(), owner as Address)).toString());
    expect(xchfRow.vault_total).toBe("0");
  });

  it("a wallet holding nothing gets an empty list unless include_zero", async () => {
    const owner = "0x00000000000000000000000000000000000e0b0b";
    const bearer = env.keyFor(owner);
    const none = await request(env.app).get(`${V1}/balances?owner_address=${owner}`).set("Authorization", bearer);
    expect(none.status).toBe(200);
    expect(none.body.balances).toEqual([]);
    const zero = await request(env.app).get(`${V1}/balances?owner_address=${owner}&include_zero=true`).set("Authorization", bearer);
    expect(zero.body.balances).toHaveLength(6);
    for (const r of zero.body.balances) expect([r.wallet_balance, r.vault_available, r.vault_frozen, r.vault_total, r.total]).toEqual(["0", "0", "0", "0", "0"]);
  });

  it("owner_address is case-sensitive: the checksummed spelling is 403", async () => {
    const res = await request(env.app).get(`${V1}/balances?owner_address=${alice().address}`).set("Authorization", env.bearer[0]!);
    expect(res.status).toBe(403);
    // The key's own wallet in another case: the message says so rather than "another wallet".
    expect(res.body).toEqual({ detail: `owner_address must be sent lowercase (${alice().address.toLowerCase()}): it is compared as sent` });
  });

  it("401 without a key; 422 without owner_address or with a bad include_zero", async () => {
    expect((await request(env.app).get(`${V1}/balances?owner_address=${ALICE()}`)).status).toBe(401);
    const missing = await request(env.app).get(`${V1}/balances`).set("Authorization", env.bearer[0]!);
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toContain("query.owner_address");
    const bad = await request(env.app).get(`${V1}/balances?owner_address=${ALICE()}&include_zero=maybe`).set("Authorization", env.bearer[0]!);
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toContain("query.include_zero");
  });
});

describe("GET /permit/metadata", () => {
  it("a permit token: allowance, nonce, domain; `required` against amount", async () => {
    const q = `token=${EURC()}&owner=${alice().address}&spender=${c.vault}`;
    const res = await request(env.app).get(`${V1}/permit/metadata?${q}`).set("Authorization", env.bearer[0]!);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      token: EURC(),
      owner: ALICE(),
      spender: c.vault,
      current_allowance_raw: "0",
      permit_supported: true,
      nonce: 0,
      domain: { name: "EURC", version: "1", chainId: c.chainId, verifyingContract: EURC() },
    });
    // After a permit deposit the nonce moves and the vault allowance is consumed.
    const deadline = BigInt(env.clock.nowSec() + 3600);
    const sig = await signPermit(c, alice(), EURC(), AMOUNT * 3n, deadline);
    const dep = await post("/deposit", { token: EURC(), owner: ALICE(), amount: AMOUNT.toString(), permit_signature: sig, permit_deadline: Number(deadline), permit_amount: (AMOUNT * 3n).toString() });
    await relay("/tx/send", dep.body.tx);
    const after = await request(env.app).get(`${V1}/permit/metadata?${q}&amount=${AMOUNT * 2n}`).set("Authorization", env.bearer[0]!);
    expect(after.body.nonce).toBe(1);
    expect(after.body.current_allowance_raw).toBe((AMOUNT * 2n).toString());
    expect(after.body.required).toBe(false);
    const more = await request(env.app).get(`${V1}/permit/metadata?${q}&amount=${AMOUNT * 2n + 1n}`).set("Authorization", env.bearer[0]!);
    expect(more.body.required).toBe(true);
  });

  it("a token without permit: permit_supported false, no nonce or domain", async () => {
    const res = await request(env.app)
      .get(`${V1}/permit/metadata?token=${XCHF()}&owner=${ALICE()}&spender=${c.vault}&amount=1`)
      .set("Authorization", env.bearer[0]!);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ token: XCHF(), owner: ALICE(), spender: c.vault, current_allowance_raw: "0", permit_supported: false, required: true });
  });

  it("401 without key, 403 for another owner, 422 for missing or bad fields", async () => {
    const q = `token=${EURC()}&owner=${BOB()}&spender=${c.vault}`;
    expect((await request(env.app).get(`${V1}/permit/metadata?${q}`)).status).toBe(401);
    const other = await request(env.app).get(`${V1}/permit/metadata?${q}`).set("Authorization", env.bearer[0]!);
    expect(other.status).toBe(403);
    const missing = await request(env.app).get(`${V1}/permit/metadata?token=${EURC()}&owner=${ALICE()}`).set("Authorization", env.bearer[0]!);
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toContain("query.spender");
    const amount = await request(env.app)
      .get(`${V1}/permit/metadata?token=${EURC()}&owner=${ALICE()}&spender=${c.vault}&amount=1e6`)
      .set("Authorization", env.bearer[0]!);
    expect(amount.status).toBe(422);
    expect(amount.body.detail).toContain("query.amount");
  });
});

describe("rate group transfer (2/s per wallet)", () => {
  it("the third helper call within a second is 429; the window frees after a second", async () => {
    const limited = await buildApp(c, { rateLimited: true });
    const call = (path: string, body: object) => request(limited.app).post(`${V1}${path}`).set("Authorization", limited.bearer[0]!).send(body);
    const body = { token: EURC(), owner: ALICE(), spender: c.vault, amount: "1" };
    expect((await call("/approve", body)).status).toBe(200);
    expect((await call("/tx/send", { raw_tx: "0x00" })).status).toBe(400);
    const third = await call("/deposit", { token: EURC(), owner: ALICE(), amount: "1" });
    expect(third.status).toBe(429);
    expect(third.body).toEqual({ detail: "Rate limit exceeded" });
    // Other wallets have their own budget; reads are another group.
    expect((await request(limited.app).post(`${V1}/approve`).set("Authorization", limited.bearer[1]!).send({ ...body, owner: BOB() })).status).toBe(200);
    expect((await request(limited.app).get(`${V1}/balances?owner_address=${ALICE()}`).set("Authorization", limited.bearer[0]!)).status).toBe(200);
    limited.clock.advanceSec(1);
    expect((await call("/approve", body)).status).toBe(200);
  });

  it("GET /balances is in the read group: the eleventh read in a second is 429", async () => {
    const limited = await buildApp(c, { rateLimited: true });
    const get = () => request(limited.app).get(`${V1}/balances?owner_address=${ALICE()}`).set("Authorization", limited.bearer[0]!);
    for (let k = 0; k < 10; k++) expect((await get()).status).toBe(200);
    const res = await get();
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ detail: "Rate limit exceeded" });
  });
});
