// Concurrent load: many client loops on loopback against the full fake (Anvil +
// engine + /api/v1) placing crossing and resting orders, cancelling, cancelling
// all, swapping (including one quote raced by several submitters), withdrawing
// (co-sign, build, sign, send) and replaying already-accepted signatures, while a
// settler runs control.settle in the background. Bounded by time and request count.
// Afterwards everything is settled and the invariants are checked:
// - conservation (balanceEconomicsViolations: ledger vs vault per token, frozen =
//   open orders' needs, nothing negative, per-owner credits/debits);
// - no fill settled twice (fill ids across confirmed batches; on-chain MatchSettled
//   events vs the engine's settled fills, as a multiset);
// - no signature accepted twice (every 2xx signature seen once; every replay rejected);
// - each raced quote has exactly one 200 and the rest 410.
//
// Run: npm run load   (LOAD_SECONDS=180 LOAD_REQUESTS=1000000 LOAD_CLIENTS=32 LOAD_SEED=7)
// Exit code 1 on any finding.
import { pathToFileURL } from "node:url";
import { erc20Abi, keccak256, toHex, type Hex } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { createFakeExchange } from "../fixtures/fake-exchange.ts";
import { Exchange } from "../sim/chain/artifacts.ts";
import { Rng } from "../sim/core/rng.ts";
import type { Address } from "../sim/core/typed-data.ts";
import { balanceEconomicsViolations } from "../properties/model.ts";

export interface LoadOptions {
  seed?: number;
  clients?: number;
  /** Wall-clock bound of the client loops. */
  seconds?: number;
  /** Request bound over all clients. */
  requests?: number;
  /** Pause between background settlement rounds (ms). */
  settleEveryMs?: number;
  /** Pause between virtual clock steps of CLOCK_STEP_SEC (ms). */
  clockStepEveryMs?: number;
  /** Submitters of each raced quote. */
  raceWidth?: number;
  log?: (line: string) => void;
}

export interface LoadReport {
  seconds: number;
  requests: number;
  /** "METHOD /route STATUS" → count. */
  byEndpoint: Map<string, number>;
  races: { total: number; oneWinner: number; noWinner: number };
  replays: { total: number; rejected: number };
  settledFills: number;
  matchSettledEvents: number;
  findings: string[];
}

/** Whole tokens minted to and deposited by each load user, per traded token. */
const UNITS = 1_000_000n;
const TOKENS = ["USDC", "USDT", "EURC"] as const;
/** Just past the default 300 s cancel cooldown. */
const CLOCK_STEP_SEC = 301;
/** Blocks per eth_getLogs request when reading MatchSettled back. */
const LOG_WINDOW = 50n;
const MARKETS = ["USDT/USDC", "EURC/USDC"] as const;

interface Market {
  symbol: string;
  tickPrecision: number;
  lowTicks: bigint;
  highTicks: bigint;
}

interface Reply {
  status: number;
  body: any;
}

/** Decimal string of `ticks` at `precision` places, canonical (no trailing zeros). */
function ticksToDecimal(ticks: bigint, precision: number): string {
  const s = ticks.toString().padStart(precision + 1, "0");
  const int = s.slice(0, s.length - precision);
  const frac = s.slice(s.length - precision).replace(/0+$/, "");
  return frac ? `${int}.${frac}` : int;
}

function decimalToTicks(d: string, precision: number): bigint {
  const [i, f = ""] = d.split(".");
  return BigInt(i! + f.padEnd(precision, "0"));
}

/** A deterministic private key per (seed, index): users beyond the fixed dev keys. */
export function loadUserKey(seed: number, i: number): Hex {
  return keccak256(toHex(`fakex/load/${seed}/user/${i}`));
}

export async function runLoad(o: LoadOptions = {}): Promise<LoadReport> {
  const seed = o.seed ?? 7;
  const clients = o.clients ?? 32;
  const seconds = o.seconds ?? 180;
  const maxRequests = o.requests ?? Number.MAX_SAFE_INTEGER;
  const raceWidth = o.raceWidth ?? 4;
  const log = o.log ?? (() => {});
  const findings: string[] = [];
  const find = (s: string) => {
    if (findings.length < 500) findings.push(s);
  };

  const ex = await createFakeExchange({ seed, users: 0, rateLimits: false, liquidity: true });
  try {
    const pub = ex.clients.public;
    const startBlock = await pub.getBlockNumber();
    const users: PrivateKeyAccount[] = Array.from({ length: clients }, (_, i) => privateKeyToAccount(loadUserKey(seed, i)));
    const deposits = new Map<Address, Map<string, bigint>>();
    const t0Fund = Date.now();
    for (const u of users) {
      const owner = u.address.toLowerCase() as Address;
      await ex.clients.test.setBalance({ address: u.address, value: 10n ** 21n });
      const per = new Map<string, bigint>();
      for (const sym of TOKENS) {
        const t = ex.registry.tokenBySymbol(sym)!;
        const amount = UNITS * 10n ** BigInt(t.decimals);
        await ex.control.fund({ address: owner, token: sym, amount, vault: true });
        per.set(t.address, amount);
      }
      deposits.set(owner, per);
    }
    log(`funded ${users.length} users in ${((Date.now() - t0Fund) / 1000).toFixed(1)} s`);

    const markets: Market[] = MARKETS.map((symbol) => {
      const m = ex.registry.marketBySymbol(symbol)!;
      const bid = ex.parts.engine.depth(symbol, "bid")[0]!;
      const ask = ex.parts.engine.depth(symbol, "ask")[0]!;
      // Prices from a few ticks under the best bid to a few over the best ask: some
      // rest, some cross the makers, some cross each other.
      return { symbol, tickPrecision: m.tickPrecision, lowTicks: decimalToTicks(bid.price, m.tickPrecision) - 3n, highTicks: decimalToTicks(ask.price, m.tickPrecision) + 3n };
    });

    const byEndpoint = new Map<string, number>();
    let sent = 0;
    const deadline = Date.now() + seconds * 1000;
    const budgetLeft = () => sent < maxRequests && Date.now() < deadline;
    const acceptedSigs = new Map<string, string>();
    const races = { total: 0, oneWinner: 0, noWinner: 0 };
    const replays = { total: 0, rejected: 0 };

    async function call(method: string, path: string, route: string, body?: unknown, auth?: string): Promise<Reply> {
      sent++;
      let status = 0;
      let parsed: any = null;
      try {
        const res = await fetch(`${ex.baseUrl}${path}`, {
          method,
          headers: { "content-type": "application/json", ...(auth ? { authorization: auth } : {}) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        status = res.status;
        const text = await res.text();
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = text;
        }
      } catch (e) {
        parsed = String(e);
      }
      const k = `${method} ${route} ${status}`;
      byEndpoint.set(k, (byEndpoint.get(k) ?? 0) + 1);
      if (status === 0) find(`${method} ${route}: no response (${String(parsed)})`);
      else if (status >= 500) find(`${method} ${route}: server error ${status} ${JSON.stringify(parsed).slice(0, 200)}`);
      return { status, body: parsed };
    }

    /** A 2xx for a signature already accepted once on this route is a double acceptance. */
    function accepted(route: string, sig: string): void {
      const k = `${route}|${sig.toLowerCase()}`;
      if (acceptedSigs.has(k)) find(`signature accepted twice on ${route}: ${sig}`);
      acceptedSigs.set(k, route);
    }

    const bearers = await Promise.all(
      users.map(async (u) => {
        const signed = await ex.signManageApiKey(u, "create", ex.control.now().now);
        const r = await call("POST", "/api-keys", "/api-keys", { ...signed, label: "load" });
        if (r.status !== 200) throw new Error(`login: ${r.status} ${JSON.stringify(r.body)}`);
        return `Bearer ${r.body.api_key}:${r.body.api_secret}`;
      }),
    );

    async function client(i: number): Promise<void> {
      const me = users[i]!;
      const owner = me.address.toLowerCase() as Address;
      const auth = bearers[i]!;
      const rng = new Rng(`${seed}/load/client/${i}`);
      const mine: { order_id: string; uuid_int: string }[] = [];
      const replayable: { path: string; body: unknown }[] = [];
      const tok = (s: string) => ex.registry.tokenBySymbol(s)!.address;

      const place = async () => {
        const m = markets[rng.int(markets.length)]!;
        const ticks = m.lowTicks + BigInt(rng.int(Number(m.highTicks - m.lowTicks) + 1));
        const body = ex.newOrder(me, { symbol: m.symbol, side: rng.chance(0.5) ? "bid" : "ask", amount: String(20 + rng.int(30)), price: ticksToDecimal(ticks, m.tickPrecision) });
        const pv = await call("POST", "/orders/preview", "/orders/preview", body);
        if (pv.status !== 200) return;
        const signed = await ex.signOrder(me, pv.body);
        const r = await call("POST", "/orders", "/orders", signed.body);
        if (r.status === 201 || r.status === 200) {
          accepted("/orders", signed.signature);
          mine.push({ order_id: signed.body.order_id, uuid_int: signed.body.uuid_int });
          replayable.push({ path: "/orders", body: signed.body });
        }
      };
      const cancel = async () => {
        if (mine.length === 0) return place();
        const o = mine.splice(rng.int(mine.length), 1)[0]!;
        const { body, signature } = await ex.signCancel(me, o);
        const r = await call("POST", "/orders/cancel", "/orders/cancel", body);
        if (r.status === 200) {
          accepted("/orders/cancel", signature);
          replayable.push({ path: "/orders/cancel", body });
        }
      };
      const cancelAll = async () => {
        await call("DELETE", `/orders/cancel-all?owner_address=${owner}`, "/orders/cancel-all", undefined, auth);
        mine.length = 0;
      };
      const quote = async () => {
        const [from, to] = rng.chance(0.5) ? ["USDC", "USDT"] : ["USDT", "USDC"];
        const q = await call("POST", "/swap/quote", "/swap/quote", {
          from_token: tok(from),
          to_token: tok(to),
          from_amount: String(5_000_000 + rng.int(20_000_000)),
          owner_address: owner,
          recipient: owner,
          expiration: ex.control.now().now + 600,
        });
        return q.status === 200 ? q.body : null;
      };
      const swap = async () => {
        const q = await quote();
        if (!q) return;
        const { body, signature } = await ex.signIntent(me, q);
        const r = await call("POST", "/swap", "/swap", body);
        if (r.status === 200) {
          accepted("/swap", signature);
          replayable.push({ path: "/swap", body });
        }
      };
      // The same signed quote from several submitters at once: exactly one may win.
      const race = async () => {
        const q = await quote();
        if (!q) return;
        const { body, signature } = await ex.signIntent(me, q);
        const rs = await Promise.all(Array.from({ length: raceWidth }, () => call("POST", "/swap", "/swap (race)", body)));
        races.total++;
        const wins = rs.filter((r) => r.status === 200).length;
        const others = rs.filter((r) => r.status !== 200).map((r) => r.status);
        if (wins === 1 && others.every((s) => s === 410)) races.oneWinner++;
        // Every submitter refused alike (e.g. 409 self-trade, 410 after a clock step): no winner, nothing consumed twice.
        else if (wins === 0 && others.every((s) => s === others[0])) races.noWinner++;
        else find(`quote race ${q.uuid}: statuses ${rs.map((r) => `${r.status}${r.status !== 200 && r.status !== 410 ? ` ${JSON.stringify(r.body).slice(0, 120)}` : ""}`).join(", ")}`);
        if (wins >= 1) accepted("/swap", signature);
      };
      const withdraw = async () => {
        const intent = {
          user: owner,
          tokens: [tok("USDC")],
          amounts: [String(1_000_000 + rng.int(1_000_000))],
          recipient: owner,
          deadline: String(ex.control.now().now + 3600),
          uuid: BigInt(`0x${rng.hex(16)}`).toString(),
        };
        const user_signature = await ex.signWithdrawIntent(me, intent);
        const co = await call("POST", "/withdraw", "/withdraw", { intent, user_signature }, auth);
        if (co.status !== 200 || co.body.success !== true) return;
        const b = await call("POST", "/withdraw/build", "/withdraw/build", { intent, user_signature, executor: co.body.executor_address, executor_signature: co.body.executor_signature }, auth);
        if (b.status !== 200) return;
        const tx = b.body.tx;
        const raw = (await me.signTransaction({
          type: "eip1559",
          to: tx.to,
          data: tx.data,
          value: BigInt(tx.value),
          chainId: Number(BigInt(tx.chainId)),
          nonce: Number(BigInt(tx.nonce)),
          gas: BigInt(tx.gas),
          maxFeePerGas: BigInt(tx.maxFeePerGas),
          maxPriorityFeePerGas: BigInt(tx.maxPriorityFeePerGas),
        })) as Hex;
        const s = await call("POST", "/withdraw/send", "/withdraw/send", { raw_tx: raw });
        if (s.status === 200) {
          const receipt = await pub.waitForTransactionReceipt({ hash: s.body.tx_hash });
          if (receipt.status !== "success") find(`withdraw ${intent.uuid}: tx ${s.body.tx_hash} reverted`);
          accepted("/withdraw/send", raw);
          replayable.push({ path: "/withdraw/send", body: { raw_tx: raw } });
          // The same intent (uuid) again, now spent on chain: no second co-signature.
          replayable.push({ path: "/withdraw", body: { intent, user_signature } });
        }
      };
      const replay = async () => {
        if (replayable.length === 0) return place();
        const r = replayable[rng.int(replayable.length)]!;
        const res = await call("POST", r.path, `${r.path} (replay)`, r.body);
        replays.total++;
        const ok = r.path === "/withdraw" ? res.status === 200 && res.body?.success === true : res.status >= 200 && res.status < 300;
        if (ok) find(`replay accepted: POST ${r.path} -> ${res.status} ${JSON.stringify(res.body).slice(0, 160)}`);
        else replays.rejected++;
      };

      const actions: [number, () => Promise<void>][] = [
        [40, place],
        [12, cancel],
        [2, cancelAll],
        [14, swap],
        [4, race],
        [6, withdraw],
        [8, replay],
      ];
      const total = actions.reduce((s, [w]) => s + w, 0);
      while (budgetLeft()) {
        let pick = rng.int(total);
        for (const [w, act] of actions) {
          if (pick < w) {
            await act();
            break;
          }
          pick -= w;
        }
      }
    }

    // Background settlement, like the live relayer, until the clients stop.
    let running = true;
    let rounds = 0;
    const settler = (async () => {
      while (running) {
        await ex.control.settle();
        rounds++;
        await new Promise((r) => setTimeout(r, o.settleEveryMs ?? 200));
      }
    })();

    // Virtual time steps past the cancel cooldown now and then, so cancels (and
    // order expiry, quote expiry mid-flight) happen under load too.
    let steps = 0;
    const ticker = (async () => {
      while (running) {
        await new Promise((r) => setTimeout(r, o.clockStepEveryMs ?? 2000));
        if (!running) break;
        await ex.control.advanceClock(CLOCK_STEP_SEC);
        steps++;
      }
    })();

    const start = Date.now();
    await Promise.all(Array.from({ length: clients }, (_, i) => client(i)));
    const elapsed = (Date.now() - start) / 1000;
    running = false;
    await settler;
    await ticker;
    await ex.control.settle();
    await ex.control.settle();
    log(`${sent} requests in ${elapsed.toFixed(1)} s by ${clients} clients, ${rounds} background settlement rounds, ${steps} clock steps of ${CLOCK_STEP_SEC} s`);

    // Conservation.
    const engine = ex.parts.engine;
    const holdings = new Map<string, bigint>();
    const walletChanges = new Map<Address, Map<string, bigint>>();
    for (const t of ex.registry.tokens()) {
      holdings.set(t.address, await pub.readContract({ address: t.address, abi: erc20Abi, functionName: "balanceOf", args: [ex.contracts.vault] }));
    }
    for (const owner of deposits.keys()) {
      const per = new Map<string, bigint>();
      // fund() deposited all it minted, so each wallet started empty: its balance is the change.
      for (const t of ex.registry.tokens()) per.set(t.address, await pub.readContract({ address: t.address, abi: erc20Abi, functionName: "balanceOf", args: [owner] }));
      walletChanges.set(owner, per);
    }
    for (const v of balanceEconomicsViolations({ engine, vaultHoldings: holdings, deposits, walletChanges })) find(`conservation: ${v}`);

    // No fill settled twice: each fill id in at most one confirmed batch, and the
    // chain's MatchSettled events are exactly the engine's settled fills.
    const confirmedIn = new Map<number, number>();
    for (const b of engine.settlementBatches()) {
      if (b.status !== "confirmed") continue;
      for (const id of b.fillIds) confirmedIn.set(id, (confirmedIn.get(id) ?? 0) + 1);
    }
    for (const [id, n] of confirmedIn) if (n > 1) find(`fill ${id} in ${n} confirmed settlement batches`);
    const fills = engine.fillRecords();
    for (const f of fills) {
      if (f.status === "pending" || f.status === "confirming") find(`fill ${f.id} still ${f.status} after settlement`);
      if (f.status === "settled" && (confirmedIn.get(f.id) ?? 0) !== 1) find(`fill ${f.id} settled but in ${confirmedIn.get(f.id) ?? 0} confirmed batches`);
    }
    // In block windows: one eth_getLogs over a long run exceeds viem's 10 MB response cap.
    const events = [];
    const head = await pub.getBlockNumber({ cacheTime: 0 });
    for (let from = startBlock; from <= head; from += LOG_WINDOW) {
      const to = from + LOG_WINDOW - 1n < head ? from + LOG_WINDOW - 1n : head;
      events.push(...(await pub.getContractEvents({ address: ex.contracts.exchange, abi: Exchange.abi, eventName: "MatchSettled", fromBlock: from, toBlock: to })));
    }
    const onChain = new Map<string, number>();
    for (const e of events) {
      const s = (e.args as { settlement: { maker: string; taker: string; makerAmount: bigint; takerAmount: bigint } }).settlement;
      const k = `${s.maker.toLowerCase()}|${s.taker.toLowerCase()}|${s.makerAmount}|${s.takerAmount}`;
      onChain.set(k, (onChain.get(k) ?? 0) + 1);
    }
    const settled = fills.filter((f) => f.status === "settled");
    const inEngine = new Map<string, number>();
    for (const f of settled) {
      const k = `${f.makerOwner.toLowerCase()}|${f.takerOwner.toLowerCase()}|${f.makerGive}|${f.takerGive}`;
      inEngine.set(k, (inEngine.get(k) ?? 0) + 1);
    }
    for (const k of new Set([...onChain.keys(), ...inEngine.keys()])) {
      const a = onChain.get(k) ?? 0;
      const b = inEngine.get(k) ?? 0;
      if (a !== b) find(`MatchSettled ${k}: ${a} on chain, ${b} settled fills in the engine`);
    }

    return { seconds: elapsed, requests: sent, byEndpoint, races, replays, settledFills: settled.length, matchSettledEvents: events.length, findings };
  } finally {
    await ex.close();
  }
}

async function main(): Promise<void> {
  const report = await runLoad({
    seed: Number(process.env["LOAD_SEED"] ?? 7),
    clients: Number(process.env["LOAD_CLIENTS"] ?? 32),
    seconds: Number(process.env["LOAD_SECONDS"] ?? 180),
    requests: Number(process.env["LOAD_REQUESTS"] ?? Number.MAX_SAFE_INTEGER),
    log: (l) => console.log(`load: ${l}`),
  });
  console.log(`load: ${report.requests} requests in ${report.seconds.toFixed(1)} s (${(report.requests / report.seconds).toFixed(0)} req/s)`);
  console.log("by endpoint and status:");
  for (const [k, n] of [...report.byEndpoint.entries()].sort(([a], [b]) => a.localeCompare(b))) console.log(`  ${k}: ${n}`);
  console.log(`quote races: ${report.races.total}, exactly one winner and the rest 410: ${report.races.oneWinner}, refused alike by all: ${report.races.noWinner}`);
  console.log(`replays of accepted signatures: ${report.replays.total}, rejected: ${report.replays.rejected}`);
  console.log(`settled fills: ${report.settledFills}, MatchSettled events: ${report.matchSettledEvents}`);
  console.log(`findings: ${report.findings.length}`);
  for (const f of report.findings.slice(0, 50)) console.log(`  ${f}`);
  if (report.findings.length > 0) process.exitCode = 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
