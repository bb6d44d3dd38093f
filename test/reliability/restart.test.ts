// `fakex serve --state-dir`: real traffic against the real CLI, then a stop and a
// restart on the same directory. (a) SIGTERM: everything is back, the event-log hash
// included. (b) kill -9 straight after the last acknowledged answers (a POST /orders
// and a transaction hash from rpc_url): those survive too. Also: flags that contradict
// the saved state (another --seed, --chain-id, --scenario), and a damaged state file,
// refuse to start (exit 2) and leave the file as it was; the same flags resume.
import { describe, expect, test } from "vitest";
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createPublicClient, createWalletClient, erc20Abi, http, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { Exchange } from "../../sim/chain/artifacts.ts";
import { exchangeDomain } from "../../sim/core/typed-data.ts";
import { limitOrderBody } from "../../sim/core/order-body.ts";
import { createSigners } from "../../fixtures/signing.ts";
import { STATE_FILE } from "../../fixtures/state-dir.ts";
import { killFakexAfterEach, runFakex, untilReady, type FakexProcess } from "../fixtures/cli-process.ts";
import { rpcAnswers } from "../fixtures/rpc.ts";

const ARGS = ["--clock", "virtual", "--auto-settle", "0", "--no-liquidity", "--users", "2"];

interface Info {
  base_url: string;
  rpc_url: string;
  control_url: string;
  chain_id: number;
  executor_id: number;
  contracts: { exchange: Address; vault: Address; tokens: Record<string, Address> };
  accounts: { address: Address; private_key: Hex }[];
}

killFakexAfterEach();
const run = runFakex;
type Proc = FakexProcess;

/** Start serve and wait for its info JSON (or fail with its stderr). */
async function serve(dir: string, extra: string[] = []): Promise<{ p: Proc; info: Info; readyLine: string }> {
  const p = run(["serve", "--state-dir", dir, ...ARGS, ...extra]);
  await untilReady(p);
  const [readyLine, ...json] = p.out().split("\n");
  return { p, info: JSON.parse(json.join("\n")) as Info, readyLine: readyLine! };
}

/**
 * The process's stderr once it holds `text` (or after 5 s): stdout and stderr are separate
 * pipes, so a line written to stderr before the info JSON may still arrive after it.
 */
async function stderrOf(p: Proc, text: string): Promise<string> {
  for (let i = 0; i < 100 && !p.err().includes(text); i++) await new Promise((r) => setTimeout(r, 50));
  return p.err();
}

/** Equal info JSON, allowing only the port to differ (the saved one may have been taken). */
/** Same server but for the port; start_time only on the start that began the run (a resume has none). */
function sameServer(resumed: Info, first: Info): boolean {
  const port = (i: Info) => new URL(i.base_url).port;
  const strip = (i: Info) => JSON.stringify({ ...i, start_time: undefined }).replaceAll(`:${port(i)}/`, ":PORT/");
  return strip(resumed) === strip(first) && !("start_time" in resumed) && typeof (first as { start_time?: unknown }).start_time === "number";
}

async function call(url: string, method: string, body?: unknown, auth?: string): Promise<{ status: number; body: any }> {
  const res = await fetch(url, {
    method,
    headers: { "content-type": "application/json", ...(auth ? { authorization: auth } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

/** A client of one running server, as a trading client would hold it. */
function clientOf(info: Info) {
  const domain = exchangeDomain("fakex", info.chain_id, info.contracts.exchange);
  const signers = createSigners(() => domain);
  const chain = { id: info.chain_id, name: "fakex", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [info.rpc_url] } } };
  const pub = createPublicClient({ chain, transport: http(info.rpc_url), pollingInterval: 10 });
  const wallet = (i: number) => createWalletClient({ account: privateKeyToAccount(info.accounts[i]!.private_key), chain, transport: http(info.rpc_url) });
  return {
    info,
    signers,
    pub,
    wallet,
    api: (method: string, p: string, body?: unknown, auth?: string) => call(`${info.base_url}${p}`, method, body, auth),
    control: (method: string, p: string, body?: unknown) => call(`${info.control_url}${p}`, method, body),
    async now(): Promise<number> {
      return (await call(`${info.control_url}/clock`, "GET")).body.now as number;
    },
  };
}
type Client = ReturnType<typeof clientOf>;

async function login(c: Client, i: number): Promise<{ auth: string; apiKey: string }> {
  const signed = await c.signers.signManageApiKey(c.info.accounts[i]!.private_key, "create", await c.now());
  const r = await c.api("POST", "/api-keys", { ...signed, label: `user${i}` });
  expect(r.status).toBe(200);
  return { auth: `Bearer ${r.body.api_key}:${r.body.api_secret}`, apiKey: r.body.api_key as string };
}

async function market(c: Client): Promise<{ symbol: string; base: Address; quote: Address }> {
  const r = await c.api("GET", "/markets");
  const m = r.body.markets.find((x: { base_symbol: string }) => x.base_symbol === "USDT");
  return { symbol: m.symbol, base: m.base_address, quote: m.quote_address };
}

/** preview → sign → POST /orders; returns the answer. */
async function place(c: Client, i: number, side: "bid" | "ask", amount: string, price: string, orderId: string) {
  const m = await market(c);
  const preview = await c.api(
    "POST",
    "/orders/preview",
    limitOrderBody({
      owner: c.info.accounts[i]!.address.toLowerCase(),
      side,
      amount,
      price,
      market: m,
      orderId,
      executorId: c.info.executor_id,
      expiration: (await c.now()) + 3600,
    }),
  );
  expect(preview.status, JSON.stringify(preview.body)).toBe(200);
  const { body } = await c.signers.signOrder(c.info.accounts[i]!.private_key, preview.body);
  return c.api("POST", "/orders", body);
}

/** A user-signed deposit through rpc_url: approve the vault, then the exchange's depositFund. */
async function deposit(c: Client, i: number, token: Address, amount: bigint): Promise<void> {
  const w = c.wallet(i);
  const owner = w.account.address;
  const approve = await w.writeContract({ address: token, abi: erc20Abi, functionName: "approve", args: [c.info.contracts.vault, amount] });
  expect((await c.pub.getTransactionReceipt({ hash: approve })).status).toBe("success");
  const dep = await w.writeContract({ address: c.info.contracts.exchange, abi: Exchange.abi, functionName: "depositFund", args: [token, owner, amount] });
  // Acknowledged through the proxy: mined before the hash came back.
  expect((await c.pub.getTransactionReceipt({ hash: dep })).status).toBe("success");
}

const ORDER_IDS = ["0b5d6a4e-1c2f-4a3b-8c9d-0e1f2a3b4c5d", "1c6e7b5f-2d3a-4b4c-9dae-1f2a3b4c5d6e", "2d7f8c6a-3e4b-4c5d-8ebf-2a3b4c5d6e7f", "3e8a9d7b-4f5c-4d6e-9fca-3b4c5d6e7f8a"];

interface Traded {
  auth: string[];
  apiKeys: string[];
  orderIds: string[];
  withdrawIntent: Record<string, string | string[]>;
}

/** Deposits, two API keys, resting orders and a crossing one, settlement, a co-signed withdraw, a clock move. */
async function trade(c: Client): Promise<Traded> {
  const m = await market(c);
  await deposit(c, 0, m.base, 100_000_000n);
  await deposit(c, 1, m.quote, 100_000_000n);
  const alice = await login(c, 0);
  const bob = await login(c, 1);
  // The ledger reads the mined deposits (as a client's first balance check does).
  for (const [i, who] of [alice, bob].entries()) {
    expect((await c.api("GET", `/balances?owner_address=${c.info.accounts[i]!.address.toLowerCase()}`, undefined, who.auth)).status).toBe(200);
  }
  expect((await place(c, 0, "ask", "25", "1", ORDER_IDS[0]!)).status).toBe(201);
  expect((await place(c, 0, "ask", "10", "1.05", ORDER_IDS[1]!)).status).toBe(201);
  expect((await place(c, 1, "bid", "25", "1", ORDER_IDS[2]!)).status).toBe(201);
  const settle = await c.control("POST", "/settle");
  expect(settle.status).toBe(200);
  expect(settle.body.fills).toEqual({ settled: 1 });

  const intent = {
    user: c.info.accounts[0]!.address,
    tokens: [m.quote],
    amounts: ["5000000"],
    recipient: c.info.accounts[0]!.address.toLowerCase(),
    deadline: String((await c.now()) + 3600),
    uuid: "777",
  };
  const sig = await c.signers.signWithdrawIntent(c.info.accounts[0]!.private_key, intent);
  const cosign = await c.api("POST", "/withdraw", { intent, user_signature: sig }, alice.auth);
  expect(cosign.status).toBe(200);
  expect(cosign.body.success).toBe(true);

  expect((await c.control("POST", "/clock/advance", { seconds: 90 })).status).toBe(200);
  return { auth: [alice.auth, bob.auth], apiKeys: [alice.apiKey, bob.apiKey], orderIds: ORDER_IDS.slice(0, 3), withdrawIntent: intent };
}

/** Everything a client can read back: orders, fills, balances (ledger and chain), clock, nonces, blocks. */
async function observe(c: Client, t: Traded) {
  const m = await market(c);
  const addr = (i: number) => c.info.accounts[i]!.address.toLowerCase();
  const orders = [];
  for (const id of t.orderIds) {
    const r = await c.api("GET", `/orders/${id}`, undefined, t.auth[id === ORDER_IDS[2] ? 1 : 0]);
    expect(r.status).toBe(200);
    orders.push(r.body);
  }
  const fills = [];
  const balances = [];
  const wallets = [];
  const nonces = [];
  for (const i of [0, 1]) {
    const f = await c.api("GET", `/fills?owner_address=${addr(i)}`, undefined, t.auth[i]);
    expect(f.status).toBe(200);
    fills.push(f.body);
    const b = await c.api("GET", `/balances?owner_address=${addr(i)}`, undefined, t.auth[i]);
    expect(b.status).toBe(200);
    balances.push(b.body);
    for (const token of [m.base, m.quote]) wallets.push(await c.pub.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [addr(i) as Address] }));
    nonces.push(await c.pub.getTransactionCount({ address: addr(i) as Address }));
  }
  const vault = await c.pub.readContract({ address: m.quote, abi: erc20Abi, functionName: "balanceOf", args: [c.info.contracts.vault] });
  const clock = (await c.control("GET", "/clock")).body;
  const events = (await c.control("GET", "/events?limit=1000")).body;
  const hash = (await c.control("GET", "/events/hash")).body.hash as string;
  const block = await c.pub.getBlock({ blockTag: "latest" });
  return { orders, fills, balances, wallets, vault, nonces, clock, events, hash, blockNumber: block.number, blockTime: block.timestamp };
}

/** After a restart: what still has to work (keys, txs with the next nonce, new orders, the co-signer's memory). */
async function useAfterRestart(c: Client, t: Traded, newOrderId: string) {
  // The old keys authenticate.
  const listed = await c.api("GET", `/orders?owner_address=${c.info.accounts[0]!.address.toLowerCase()}`, undefined, t.auth[0]);
  expect(listed.status).toBe(200);
  // A new key is new: the secret stream went on where it stopped, it did not start over.
  const fresh = await login(c, 0);
  expect(t.apiKeys).not.toContain(fresh.apiKey);
  // The chain takes the users' next transactions (nonces carried over).
  const m = await market(c);
  const w = c.wallet(1);
  const hash = await w.writeContract({ address: m.quote, abi: erc20Abi, functionName: "transfer", args: [c.info.accounts[0]!.address, 1_000n] });
  expect((await c.pub.getTransactionReceipt({ hash })).status).toBe("success");
  // Orders: a new one rests; the resting one from before still matches.
  const placed = await place(c, 1, "bid", "10", "1.05", newOrderId);
  expect(placed.status).toBe(201);
  expect((await c.control("POST", "/settle")).body.fills).toMatchObject({ settled: 2 });
  expect((await c.api("GET", `/orders/${ORDER_IDS[1]}`, undefined, t.auth[0])).body.status).toBe("settled");
  // The co-signer remembers uuid 777: a different intent under it is refused.
  const other = { ...t.withdrawIntent, amounts: ["6000000"] };
  const sig = await c.signers.signWithdrawIntent(c.info.accounts[0]!.private_key, other as never);
  const again = await c.api("POST", "/withdraw", { intent: other, user_signature: sig }, t.auth[0]);
  expect(again.status).toBe(200);
  expect(again.body).toMatchObject({ success: false });
  expect(again.body.error).toContain("already used");
}

describe("fakex serve --state-dir: restart loses nothing acknowledged", () => {
  let termDir = "";

  test("SIGTERM, then a restart on the same directory: every layer, the chain and the event-log hash are back", async () => {
    termDir = path.join(mkdtempSync(path.join(tmpdir(), "fakex-restart-")), "state"); // does not exist yet: created
    const first = await serve(termDir);
    const c1 = clientOf(first.info);
    expect(first.info.rpc_url).toBe(first.info.base_url.replace("/api/v1", "/rpc"));
    const traded = await trade(c1);
    const before = await observe(c1, traded);
    expect(before.orders.map((o) => o.status)).toEqual(["settled", "pending", "settled"]);
    first.p.child.kill("SIGTERM");
    expect(await first.p.exited).toBe(0);
    expect(await rpcAnswers(first.info.rpc_url)).toBe(false);

    const second = await serve(termDir);
    try {
      expect(await stderrOf(second.p, "resumed from")).toContain(`resumed from ${termDir}`);
      // Same contracts, accounts, chain and executor; the same URLs unless another process
      // took the freed port in between (then the server falls back to a free one).
      expect(sameServer(second.info, first.info)).toBe(true);
      expect(second.readyLine.replace(/:\d+\//g, ":PORT/")).toBe(first.readyLine.replace(/:\d+\//g, ":PORT/"));
      const c2 = clientOf(second.info);
      const after = await observe(c2, traded);
      expect(after).toEqual(before);
      await useAfterRestart(c2, traded, ORDER_IDS[3]!);
    } finally {
      // Anvil goes with it (parent-death signal); the clean stop was checked above.
      second.p.child.kill("SIGKILL");
      await second.p.exited;
    }
  }, 60_000);

  test("kill -9 right after the last acknowledged answers: the order and the transaction survive", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-restart-kill-"));
    const first = await serve(dir);
    const c1 = clientOf(first.info);
    const traded = await trade(c1);
    // One server per directory: a second one on it is refused while the first lives (exit 2, like every state-dir refusal).
    const rival = run(["serve", "--state-dir", dir, ...ARGS]);
    expect(await rival.exited).toBe(2);
    expect(rival.err()).toContain(`is in use by another fakex (pid ${first.p.child.pid})`);
    const before = await observe(c1, traded);
    // The last two acknowledgements: an order (201) and a transaction hash from rpc_url.
    const placed = await place(c1, 1, "bid", "10", "1.05", ORDER_IDS[3]!);
    expect(placed.status).toBe(201);
    const m = await market(c1);
    const txHash = await c1.wallet(0).writeContract({ address: m.base, abi: erc20Abi, functionName: "transfer", args: [first.info.accounts[1]!.address, 12_345n] });
    first.p.child.kill("SIGKILL");
    expect(await first.p.exited).toBe(null);

    const second = await serve(dir);
    try {
      expect(sameServer(second.info, first.info)).toBe(true);
      const c2 = clientOf(second.info);
      const receipt = await c2.pub.getTransactionReceipt({ hash: txHash });
      expect(receipt.status).toBe("success");
      const order = await c2.api("GET", `/orders/${ORDER_IDS[3]}`, undefined, traded.auth[1]);
      expect(order.status).toBe(200);
      expect(order.body).toMatchObject({ status: "matched", amount: "10" });
      const after = await observe(c2, { ...traded });
      // The log is the old one plus the last order's events; chain and ledger moved by exactly those two.
      expect(after.events.events.slice(0, before.events.total)).toEqual(before.events.events);
      expect(after.events.total).toBeGreaterThan(before.events.total);
      expect(after.events.events.slice(before.events.total).map((e: { type: string }) => e.type)).toContain("order_placed");
      expect(after.clock).toEqual(before.clock);
      expect(after.nonces).toEqual([before.nonces[0]! + 1, before.nonces[1]!]);
      expect(after.wallets[0]).toBe(before.wallets[0]! - 12_345n);
      expect(after.wallets[2]).toBe(before.wallets[2]! + 12_345n);
      expect(after.blockNumber).toBe(before.blockNumber + 1n);
      // The two settled orders are as they were; the resting ask is now matched by the last order.
      expect([after.orders[0], after.orders[2]]).toEqual([before.orders[0], before.orders[2]]);
      expect(after.orders[1]).toMatchObject({ status: "matched", remaining_amount: "0" });
      await c2.control("POST", "/settle");
      expect((await c2.api("GET", `/orders/${ORDER_IDS[3]}`, undefined, traded.auth[1])).body.status).toBe("settled");
    } finally {
      // Anvil goes with it (parent-death signal); the clean stop was checked above.
      second.p.child.kill("SIGKILL");
      await second.p.exited;
    }
  }, 60_000);

  test("a deposit taken in after a restart keeps its event time through a later restart with no request in between", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-restart-deposit-"));
    const kill9 = async (p: Proc) => {
      p.child.kill("SIGKILL");
      await p.exited;
    };
    const first = await serve(dir);
    const c1 = clientOf(first.info);
    await deposit(c1, 0, first.info.contracts.tokens.USDC!, 44_000_000n);
    // Mined, not yet taken in: the restart's replay mines it again, and its checkpoint holds it so.
    await kill9(first.p);
    const second = await serve(dir);
    const c2 = clientOf(second.info);
    expect((await c2.control("POST", "/clock/advance", { seconds: 1 })).status).toBe(200);
    // The settlement round takes the deposit in, one second after that checkpoint's clock.
    expect((await c2.control("POST", "/settle")).status).toBe(200);
    const deposits = async (c: Client) => (await c.control("GET", "/events?limit=1000")).body.events.filter((e: { type: string }) => e.type === "deposit");
    const before = { deposits: await deposits(c2), hash: (await c2.control("GET", "/events/hash")).body.hash };
    expect(before.deposits).toHaveLength(1);
    expect(before.deposits[0].at).toBe(((await c2.now()) as number) * 1000);
    await kill9(second.p);
    const third = await serve(dir);
    try {
      const c3 = clientOf(third.info);
      // Before: the resume took it in at the checkpoint's clock, a second early, and the hash moved.
      expect({ deposits: await deposits(c3), hash: (await c3.control("GET", "/events/hash")).body.hash }).toEqual(before);
    } finally {
      await kill9(third.p);
    }
  }, 60_000);

  test("--help documents --state-dir", async () => {
    const p = run(["--help"]);
    expect(await p.exited).toBe(0);
    expect(p.out()).toContain("--state-dir <dir>");
    expect(p.out()).toMatch(/kill -9/);
  });

  test("flags that contradict the saved state are refused (exit 2), naming each, and the file is left as it was", async () => {
    expect(termDir).not.toBe("");
    const file = path.join(termDir, STATE_FILE);
    const saved = readFileSync(file);
    const p = run(["serve", "--state-dir", termDir, "--seed", "9", "--chain-id", "11155111"]);
    expect(await p.exited).toBe(2);
    expect(p.err()).toContain("--seed");
    expect(p.err()).toContain("--chain-id");
    expect(p.err()).toContain("11155111");
    expect(readFileSync(file).equals(saved)).toBe(true);
    // The profile and the domain name are part of what was saved, too.
    const profiled = run(["serve", "--state-dir", termDir, "--profile", "testnet", "--domain-name", "Sera"]);
    expect(await profiled.exited).toBe(2);
    expect(profiled.err()).toMatch(/--profile: the saved state was made with "local", this start asks for "testnet"/);
    expect(profiled.err()).toMatch(/--domain-name: the saved state was made with "fakex"/);
    expect(readFileSync(file).equals(saved)).toBe(true);
    // Market activity needs the seeded makers, which a --no-liquidity state has none of.
    const active = run(["serve", "--state-dir", termDir, "--activity"]);
    expect(await active.exited).toBe(2);
    expect(active.err()).toMatch(/--activity: it needs the seeded makers, and the saved state was made with --no-liquidity/);
    expect(readFileSync(file).equals(saved)).toBe(true);
  });

  test("a --clock virtual state resumes on the virtual clock without the flag: no jump by the downtime, no drift", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-restart-clock-"));
    const first = await serve(dir, ["--start-time", "2026-01-01T00:00:00Z"]);
    const before = (await call(`${first.info.control_url}/clock`, "GET")).body.now;
    first.p.child.kill("SIGTERM");
    expect(await first.p.exited).toBe(0);
    await new Promise((r) => setTimeout(r, 1_100));
    const again = run(["serve", "--state-dir", dir]);
    await untilReady(again);
    const info = JSON.parse(again.out().split("\n").slice(1).join("\n")) as Info;
    expect((await call(`${info.control_url}/clock`, "GET")).body.now).toBe(before);
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await call(`${info.control_url}/clock`, "GET")).body.now).toBe(before);
    again.child.kill("SIGTERM");
    expect(await again.exited).toBe(0);
  }, 60_000);

  test("a --profile testnet state resumes as testnet without the flag (chain id, live exchange address); --profile mainnet is refused", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-restart-profile-"));
    const first = await serve(dir, ["--profile", "testnet"]);
    expect(first.info.chain_id).toBe(11155111);
    first.p.child.kill("SIGTERM");
    expect(await first.p.exited).toBe(0);
    const again = await serve(dir);
    expect(await stderrOf(again.p, "resumed from")).toContain("resumed from");
    expect(again.info.chain_id).toBe(11155111);
    expect(again.info.contracts.exchange).toBe("0x63c8e50c04c278d3574b2468c72e470df866efd2");
    const config = await call(`${again.info.base_url}/config`, "GET");
    expect(JSON.stringify(config.body)).toContain('"Sera"');
    again.p.child.kill("SIGTERM");
    expect(await again.p.exited).toBe(0);
    const other = run(["serve", "--state-dir", dir, "--profile", "mainnet"]);
    expect(await other.exited).toBe(2);
    expect(other.err()).toContain("--profile");
  }, 60_000);

  test("the same --scenario (and flags) resume; another scenario file is refused", async () => {
    const scenarios = new URL("../../scenarios/", import.meta.url).pathname;
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-restart-scenario-"));
    const first = await serve(dir, ["--scenario", path.join(scenarios, "degraded-health.json"), "--seed", "1"]);
    first.p.child.kill("SIGKILL");
    await first.p.exited;
    const again = await serve(dir, ["--scenario", path.join(scenarios, "degraded-health.json"), "--seed", "1"]);
    expect(await stderrOf(again.p, "resumed from")).toContain("resumed from");
    expect(sameServer(again.info, first.info)).toBe(true);
    again.p.child.kill("SIGKILL");
    await again.p.exited;
    const other = run(["serve", "--state-dir", dir, ...ARGS, "--scenario", path.join(scenarios, "revert-storm.json")]);
    expect(await other.exited).toBe(2);
    expect(other.err()).toContain("--scenario");
  }, 60_000);

  test("a damaged or foreign state file is an error (exit 2), never a fresh start over it", async () => {
    expect(termDir).not.toBe("");
    const src = path.join(termDir, STATE_FILE);
    // One byte of the body changed.
    const damaged = mkdtempSync(path.join(tmpdir(), "fakex-damaged-"));
    copyFileSync(src, path.join(damaged, STATE_FILE));
    const bytes = readFileSync(path.join(damaged, STATE_FILE));
    const at = bytes.length - 10;
    bytes[at] = bytes[at] === 0x31 ? 0x32 : 0x31;
    writeFileSync(path.join(damaged, STATE_FILE), bytes);
    const p = run(["serve", "--state-dir", damaged]);
    expect(await p.exited).toBe(2);
    expect(p.err()).toContain("is damaged");
    expect(readFileSync(path.join(damaged, STATE_FILE)).equals(bytes)).toBe(true);
    // (A file cut short, a wrong format version: test/reliability/state-dir.test.ts.)
    // Not a state file at all.
    writeFileSync(path.join(damaged, STATE_FILE), "hello\n");
    const foreign = run(["serve", "--state-dir", damaged]);
    expect(await foreign.exited).toBe(2);
    expect(foreign.err()).toContain("not a fakex state file");
  });

  test("a lost checkpoint file or a lost log file is an error (exit 2), and nothing is deleted", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-lost-"));
    const first = await serve(dir);
    expect((await call(`${first.info.control_url}/fund`, "POST", { address: first.info.accounts[0]!.address, token: "USDC", amount: "5", vault: true })).status).toBe(200);
    first.p.child.kill("SIGKILL");
    await first.p.exited;
    const logs = path.join(dir, "wal");
    const logNames = readdirSync(logs);
    // The checkpoint file moved away: the log's records have nothing to be replayed on.
    renameSync(path.join(dir, STATE_FILE), path.join(dir, "moved.json"));
    const noState = run(["serve", "--state-dir", dir]);
    expect(await noState.exited).toBe(2);
    expect(noState.err()).toMatch(/logged request\(s\) but .* has no state file/);
    expect(readdirSync(logs)).toEqual(logNames);
    // The checkpoint back, its log gone.
    renameSync(path.join(dir, "moved.json"), path.join(dir, STATE_FILE));
    rmSync(logs, { recursive: true });
    const noLog = run(["serve", "--state-dir", dir]);
    expect(await noLog.exited).toBe(2);
    expect(noLog.err()).toMatch(/which the checkpoint names, is missing/);
  }, 60_000);
});
