// `fakex conformance` against the in-memory exchange served on a loopback port:
// read-only and write sets pass, and a deployment with one broken route fails.
import { afterEach, describe, expect, it } from "vitest";
import express, { type Application } from "express";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { privateKeyToAccount } from "viem/accounts";
import { ANVIL_KEYS } from "../../fixtures/accounts.ts";
import { createExchangeApp, createMemoryExchange, type MemoryExchange, type MemoryExchangeOptions } from "../../sim/http/exchange-app.ts";
import type { FundsServices } from "../../sim/http/funds-services.ts";
import { MEMORY_VAULT_ADDRESS } from "../../sim/core/engine.ts";
import type { Address } from "../../sim/core/typed-data.ts";
import { conformanceCommand, formatConformanceTable, runConformance } from "../../properties/conformance.ts";

const KEY = ANVIL_KEYS[5]!;
const WALLET = privateKeyToAccount(KEY).address.toLowerCase();
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function serve(app: Application): Promise<string> {
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
}

const ROUTER = "0x00000000000000000000000000000000000a0171" as Address;

/**
 * createMemoryExchange mounts no funds routes and serves null vault / router
 * addresses in /config (conformance rightly fails those). For a complete surface
 * this adds the balance reads over the memory chain; the other funds routes are
 * not part of the conformance set.
 */
function withFunds(ex: MemoryExchange): MemoryExchange {
  const unsupported = () => Promise.reject(new Error("not on the memory port"));
  const funds = {
    deployment: { chainId: ex.configInputs.chainId!, exchange: ex.configInputs.exchangeAddress as Address, vault: MEMORY_VAULT_ADDRESS, router: ROUTER },
    reader: {
      walletBalance: (owner: Address, token: Address) => ex.chain.walletBalance(owner, token),
      vaultBalance: (owner: Address, token: Address) => ex.chain.vaultBalance(owner, token),
      permitState: unsupported,
      withdrawUuidUsed: unsupported,
      sendRawTransaction: unsupported,
    },
    builder: { approve: unsupported, deposit: unsupported, transfer: unsupported, withdraw: unsupported },
    ledger: ex.engine.ledger,
    available: (owner: string, token: string) => ex.engine.available(owner, token),
    sync: async () => undefined,
    coSigner: undefined,
  } as unknown as FundsServices;
  const config = () => ({ ...ex.configInputs, vaultAddress: MEMORY_VAULT_ADDRESS, sorAddress: ROUTER });
  const app = createExchangeApp({ ...ex, config, funds, logger: { error: () => undefined } });
  return { ...ex, app, config };
}

/** Forward a request to the real app and answer with its body altered (GET or DELETE, no body). */
type Through = (req: express.Request, res: express.Response, alter: (body: Record<string, unknown>) => Record<string, unknown>, url?: string) => Promise<void>;

function memory(o: MemoryExchangeOptions = {}, funded = true) {
  const ex = withFunds(createMemoryExchange({ logger: { error: () => undefined }, ...o }));
  if (funded) ex.fund(WALLET, "EURC", 1_000n * 10n ** 6n);
  return ex;
}

describe("fakex conformance", () => {
  it("read-only: every check passes against fakex, nothing is skipped", async () => {
    const url = await serve(memory().app);
    const results = await runConformance({ baseUrl: url, privateKey: KEY, readOnly: true });
    expect(results.filter((r) => r.status !== "pass"), formatConformanceTable(results)).toEqual([]);
    expect(results.every((r) => r.group === "read")).toBe(true);
    expect(results.length).toBeGreaterThanOrEqual(12);
  });

  it("write set with a funded wallet and no cooldown: key, balances, place + cancel, self-revoke all pass", async () => {
    const ex = memory({ engine: { cancelCooldownSec: 0 } });
    const url = await serve(ex.app);
    const results = await runConformance({ baseUrl: url, privateKey: KEY });
    const writes = results.filter((r) => r.group === "write");
    expect(writes.map((r) => [r.name, r.status]), formatConformanceTable(results)).toEqual([
      ["POST /api-keys with a ManageApiKey signature", "pass"],
      ["GET /balances with the key", "pass"],
      ["POST /orders signed ask, GET /orders/{id}, cancel", "pass"],
      ["GET /orders and GET /fills lists, DELETE /orders/cancel-all with the key", "pass"],
      ["POST /api-keys/self-revoke", "pass"],
    ]);
    expect(writes[2]!.detail).toMatch(/^placed and cancelled/);
    // Nothing open was left, so cancel-all ran and had nothing to cancel.
    expect(writes[3]!.detail).toMatch(/cancel-all: 0 cancelled, 0 skipped by the cooldown$/);
    // The order really went through the engine and was cancelled there.
    const orders = ex.engine.listOrders(WALLET);
    expect(orders.map((o) => o.status)).toEqual(["cancelled"]);
    // Run again a second later (a CI retry): the wallet's read budget has refilled; the key's
    // signature for the first run's second is spent, so the kit signs for a later one.
    ex.clock.advanceSec(1);
    const again = await runConformance({ baseUrl: url, privateKey: KEY });
    expect(again.filter((r) => r.group === "write").map((r) => r.status), formatConformanceTable(again)).toEqual(["pass", "pass", "pass", "pass", "pass"]);
  });

  it("with the default 5-minute cooldown the cancel is a 429 CANCEL_COOLDOWN and still passes", async () => {
    const ex = memory();
    const results = await runConformance({ baseUrl: await serve(ex.app), privateKey: KEY });
    const order = results.find((r) => r.name.startsWith("POST /orders signed"))!;
    expect(order.status).toBe("pass");
    expect(order.detail).toMatch(/429 CANCEL_COOLDOWN/);
    // cancel-all names the order the cooldown still protects.
    const lists = results.find((r) => r.name.startsWith("GET /orders and GET /fills"))!;
    expect([lists.status, lists.detail], formatConformanceTable(results)).toEqual(["pass", expect.stringMatching(/cancel-all: 0 cancelled, 1 skipped by the cooldown$/)]);
    expect(ex.engine.listOrders(WALLET).map((o) => o.status)).toEqual(["pending"]);
  });

  it("a wallet whose read budget is spent (a frozen virtual clock) gets its checks skipped, not failed, after waiting the 429 out three times", async () => {
    const ex = memory({ engine: { cancelCooldownSec: 0 } });
    const url = await serve(ex.app);
    expect((await runConformance({ baseUrl: url, privateKey: KEY })).filter((r) => r.status !== "pass")).toEqual([]);
    // The same virtual second: the first run used nearly all of the 10 reads a second.
    const again = await runConformance({ baseUrl: url, privateKey: KEY });
    const skipped = again.filter((r) => r.status === "skip");
    expect(again.filter((r) => r.status === "fail"), formatConformanceTable(again)).toEqual([]);
    expect(skipped.length, formatConformanceTable(again)).toBeGreaterThan(0);
    expect(skipped.map((r) => r.detail).join("\n")).toMatch(/still rate limited \(429\) after waiting three times/);
  }, 60_000);

  it("a balance read that fails skips the order check for that reason, not as a wallet without funds", async () => {
    const ex = memory({ engine: { cancelCooldownSec: 0 } });
    const broken = express();
    broken.get("/api/v1/balances", (_req, res) => void res.status(503).json({ detail: "Service temporarily unavailable" }));
    broken.use(ex.app);
    const results = await runConformance({ baseUrl: `${await serve(broken)}`, privateKey: KEY });
    const byName = (prefix: string) => results.find((r) => r.name.startsWith(prefix))!;
    expect(byName("GET /balances with the key").status).toBe("fail");
    expect([byName("POST /orders signed ask").status, byName("POST /orders signed ask").detail]).toEqual(["skip", "GET /balances failed above, so the wallet's vault funds are unknown"]);
  }, 60_000);

  it("an unfunded wallet skips the order check gracefully (exit 0)", async () => {
    const url = await serve(memory({}, false).app);
    const out: string[] = [];
    const code = await conformanceCommand(["--base-url", url, "--private-key", KEY], (s) => out.push(s));
    const table = out.join("");
    expect(table).toMatch(/POST \/orders signed ask.*SKIP\s+the wallet has no vault funds/);
    expect(table).toMatch(/GET \/orders and GET \/fills lists.*SKIP\s+no order was placed/);
    expect(table).toMatch(/0 failed, 2 skipped/);
    expect(code).toBe(0);
  });

  it("--read-only beside a key runs the read checks alone: no write row in the table, no order placed", async () => {
    const ex = memory({ engine: { cancelCooldownSec: 0 } });
    const out: string[] = [];
    const code = await conformanceCommand(["--base-url", await serve(ex.app), "--private-key", KEY, "--read-only"], (s) => out.push(s));
    const table = out.join("");
    expect(code).toBe(0);
    expect(table).not.toMatch(/ write /);
    expect(table).toMatch(/^\d+ passed, 0 failed, 0 skipped$/m);
    expect(ex.engine.listOrders(WALLET)).toEqual([]);
  });

  it("one broken route makes the run fail and exit 1", async () => {
    const ex = memory();
    const broken = express();
    broken.get("/api/v1/health", (_req, res) => {
      res.json({ status: "healthy", version: "v2", timestamp: new Date(0).toISOString(), executor_id: 3, relayer_executor_id: null, signature_ready: true });
    });
    broken.use(ex.app);
    const out: string[] = [];
    const code = await conformanceCommand(["--base-url", await serve(broken), "--read-only"], (s) => out.push(s));
    expect(code).toBe(1);
    expect(out.join("")).toMatch(/GET \/health shape and rules\s+read\s+FAIL\s+version v2/);
  });

  it("what the spec leaves open passes: sera_address alone, times without a zone, change_pct 0, a 204 self-revoke, 422 previews, a success body's own `code` field", async () => {
    const ex = memory({ engine: { cancelCooldownSec: 0 } });
    const inner = await serve(ex.app);
    // A live-shaped deployment: fakex's answers, rewritten where the spec allows another form.
    const live = express();
    live.use(express.raw({ type: () => true }));
    live.all(/.*/, async (req, res) => {
      const r = await fetch(`${inner.replace("/api/v1", "")}${req.originalUrl}`, {
        method: req.method,
        headers: { ...(req.headers["content-type"] ? { "content-type": String(req.headers["content-type"]) } : {}), ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) },
        ...(req.method === "GET" || req.method === "HEAD" ? {} : { body: req.body as Buffer }),
      });
      const text = await r.text();
      let body: any = text === "" ? null : JSON.parse(text);
      let status = r.status;
      const path = req.path;
      if (path === "/api/v1/config") {
        body = { ...body, sera_address: body.exchange_address };
        delete body.exchange_address;
      }
      if (path === "/api/v1/health") body = { ...body, timestamp: String(body.timestamp).replace(/Z$/, ""), code: "region-7" };
      if (path === "/api/v1/fx/rate" && body?.change_pct === "0.0000") body = { ...body, change_pct: "0" };
      if (path === "/api/v1/orders/preview" && status === 400) status = 422;
      if (path === "/api/v1/api-keys/self-revoke" && status === 200) return void res.status(204).end();
      res.status(status).json(body);
    });
    const results = await runConformance({ baseUrl: `${await serve(live)}`, privateKey: KEY });
    expect(results.filter((r) => r.status !== "pass"), formatConformanceTable(results)).toEqual([]);
  });

  it("a plain-text answer, an error without detail, a domain_separator that is not the domain's hash, untyped POST /orders errors: each fails its check", async () => {
    const ex = memory();
    const broken = express();
    broken.get("/api/v1/system/time", (_req, res) => void res.type("text/plain").send("1700000000"));
    broken.get("/api/v1/no-such-route-fakex-conformance", (_req, res) => void res.status(404).json({ error: "Not Found" }));
    broken.get("/api/v1/config", async (_req, res) => {
      const r = await fetch(`${inner}/config`);
      res.json({ ...((await r.json()) as object), domain_separator: `0x${"ab".repeat(32)}` });
    });
    broken.post("/api/v1/orders", (_req, res) => void res.status(422).json({ detail: "bad json" }));
    broken.use(ex.app);
    const inner = await serve(ex.app);
    const results = await runConformance({ baseUrl: await serve(broken), readOnly: true });
    const failed = Object.fromEntries(results.filter((r) => r.status === "fail").map((r) => [r.name, r.detail]));
    expect(failed["every answer is JSON and every error carries detail (every response above)"], formatConformanceTable(results)).toMatch(
      /GET \/system\/time → 200 content-type "text\/plain.*GET \/no-such-route-fakex-conformance → 404 without detail/,
    );
    expect(failed["GET /config shape"]).toMatch(/domain_separator is the hash of eip712_domain/);
    expect(failed["malformed JSON: 4xx, never 5xx"]).toMatch(/POST \/orders with broken JSON: typed/);
  });

  it("a server time in milliseconds fails the time check", async () => {
    const ex = memory();
    const broken = express();
    broken.get("/api/v1/system/time", (_req, res) => void res.json({ timestamp: ex.clock.nowMs() }));
    broken.use(ex.app);
    const results = await runConformance({ baseUrl: await serve(broken), readOnly: true });
    const time = results.find((r) => r.name === "GET /system/time");
    expect(time?.status, formatConformanceTable(results)).toBe("fail");
    expect(time?.detail).toBe(`timestamp integer Unix seconds (got ${ex.clock.nowMs()})`);
  });

  it("a swap quote whose signed minimum is not its output after gas fails the quote check", async () => {
    const ex = memory();
    const broken = express();
    broken.post("/api/v1/swap/quote", express.json(), (req, res) => {
      const b = req.body as Record<string, unknown>;
      const now = Math.floor(Date.now() / 1000);
      res.json({
        uuid: "0b8f0b7e-2c1d-4f3a-9b2c-6d5e4f3a2b1c",
        route_params: { taker: b.owner_address, inputToken: b.from_token, outputToken: b.to_token, maxInputAmount: b.from_amount, minOutputAmount: "1000", recipient: b.recipient, initialDepositAmount: "0", uuid: "123", deadline: b.expiration },
        fee_breakdown: { gas_cost_usd: "0.01", gas_cost_from_token: "0.01" },
        quote_breakdown: { gas_mode: "receive_less", output_amount_after_gas: "999" },
        expires_at: now + 30,
        permit: null,
      });
    });
    broken.use(ex.app);
    const results = await runConformance({ baseUrl: await serve(broken), readOnly: true });
    const quote = results.find((r) => r.name.startsWith("POST /swap/quote: the quote resource"))!;
    expect(quote.status, formatConformanceTable(results)).toBe("fail");
    expect(quote.detail).toBe("receive_less: minOutputAmount = output_amount_after_gas");
  });

  it("a GET /orders/{id} body cut down to a few fields fails the order check", async () => {
    const ex = memory({ engine: { cancelCooldownSec: 0 } });
    const inner = await serve(ex.app);
    const gutted = express();
    gutted.get(/^\/api\/v1\/orders\/[0-9a-f-]{36}$/, async (req, res) => {
      const r = await fetch(`${inner.replace("/api/v1", "")}${req.originalUrl}`, { headers: { authorization: String(req.headers.authorization) } });
      const o = (await r.json()) as Record<string, unknown>;
      res.status(r.status).json({ trade_id: o.trade_id, status: o.status, uuid_int: o.uuid_int, owner_address: o.owner_address });
    });
    gutted.use(ex.app);
    const results = await runConformance({ baseUrl: await serve(gutted), privateKey: KEY });
    const order = results.find((r) => r.name.startsWith("POST /orders signed"))!;
    expect(order.status, formatConformanceTable(results)).toBe("fail");
    expect(order.detail).toMatch(/order_type limit, side ask/);
  });

  it("what the audit slipped past: a 503 without Retry-After, an order without vl_batch_id or with an empty settlement_summary, a preview without its fields or with another Order type, a plain swap-quote refusal", async () => {
    const ex = memory({ engine: { cancelCooldownSec: 0 } });
    const inner = await serve(ex.app);
    const origin = inner.replace("/api/v1", "");
    const through = async (req: express.Request, alter: (body: Record<string, unknown>) => Record<string, unknown>, res: express.Response) => {
      const r = await fetch(`${origin}${req.originalUrl}`, { method: req.method, headers: { "content-type": "application/json", ...(req.headers.authorization ? { authorization: String(req.headers.authorization) } : {}) }, ...(req.method === "GET" ? {} : { body: JSON.stringify(req.body) }) });
      res.status(r.status).json(alter((await r.json()) as Record<string, unknown>));
    };
    const broken = express();
    broken.get("/api/v1/fx/rate", (req, res, next) => (req.query.base === "EUR" && req.query.quote === "USD" ? void res.status(503).json({ detail: "upstream down" }) : next()));
    broken.get(/^\/api\/v1\/orders\/[0-9a-f-]{36}$/, (req, res) =>
      void through(req, (o) => {
        const { vl_batch_id: _dropped, ...rest } = o;
        return { ...rest, settlement_summary: {} };
      }, res),
    );
    broken.post("/api/v1/orders/preview", express.json(), (req, res) =>
      void through(req, (b) => (b.ok === true ? { ok: true, rounding_mode: b.rounding_mode, eip712_order: b.eip712_order, eip712_types: { Order: (b.eip712_types as { Order: { name: string; type: string }[] }).Order.map((x) => (x.type === "uint48" ? { ...x, type: "uint256" } : x)) } } : b), res),
    );
    broken.post("/api/v1/swap/quote", (_req, res) => void res.status(400).json({ detail: "nope" }));
    broken.use(ex.app);
    const results = await runConformance({ baseUrl: await serve(broken), privateKey: KEY });
    const failed = Object.fromEntries(results.filter((r) => r.status === "fail").map((r) => [r.name, r.detail]));
    const table = formatConformanceTable(results);
    expect(failed["every answer is JSON and every error carries detail (every response above)"], table).toMatch(/GET \/fx\/rate\?base=EUR&quote=USD → 503 without Retry-After/);
    expect(failed[results.find((r) => r.name.startsWith("POST /orders signed"))!.name], table).toMatch(/vl_batch_id present and null/);
    expect(failed["POST /orders/preview: valid ask returns the Order to sign"], table).toMatch(/eip712_types.Order is the spec's Order type/);
    expect(failed["POST /swap/quote: the quote resource, or a typed refusal"], table).toMatch(/a refusal is a 4xx with a typed detail.code/);
  });

  it("order and fill lists: a list without total, a status filter that is ignored, a fill without its settlement status, a cancel-all whose total is not its count: each fails the lists check", async () => {
    const variants: [string, (app: express.Express, through: Through) => void, RegExp][] = [
      ["no total", (app, through) => app.get("/api/v1/orders", (req, res) => void through(req, res, ({ total: _t, ...rest }) => rest)), /\{trades: array, total: integer\}/],
      ["status ignored", (app, through) => app.get("/api/v1/orders", (req, res) => void through(req, res, (b) => b, req.originalUrl.replace(/status=settled&/, ""))), /status=settled leaves our order out/],
      ["fill without status", (app, through) => app.get("/api/v1/fills", (req, res) => void through(req, res, (b) => (Array.isArray(b.items) ? { items: [{ maker_order_id: "a", taker_order_id: "b", quantity: "1", price: "1", tx_hash: null, timestamp: "2026-01-01T00:00:00Z", failure_reason: null, settlement_economics: {} }, ...b.items] } : b))), /fill settlement_status one of/],
      ["cancel-all total", (app, through) => app.delete("/api/v1/orders/cancel-all", (req, res) => void through(req, res, (b) => ({ ...b, total: 7 }))), /cancel-all: total 7 counts the cancelled/],
    ];
    for (const [label, mount, why] of variants) {
      const ex = memory({ engine: { cancelCooldownSec: 0 } });
      const origin = (await serve(ex.app)).replace("/api/v1", "");
      const through: Through = async (req, res, alter, url = req.originalUrl) => {
        const r = await fetch(`${origin}${url}`, { method: req.method, headers: { authorization: String(req.headers.authorization) } });
        res.status(r.status).json(alter((await r.json()) as Record<string, unknown>));
      };
      const app = express();
      mount(app, through);
      app.use(ex.app);
      const results = await runConformance({ baseUrl: await serve(app), privateKey: KEY });
      const lists = results.find((r) => r.name.startsWith("GET /orders and GET /fills"))!;
      expect(lists.status, `${label}\n${formatConformanceTable(results)}`).toBe("fail");
      expect(lists.detail, label).toMatch(why);
    }
  });

  it("a list whose total is the page size fails, and cancel-all is decided on the orders listed: the wallet's other open order is never cancelled", async () => {
    const ex = memory();
    const url = await serve(ex.app);
    // A first run leaves its ask resting (the cooldown refuses the cancel); past the cooldown it could be cancelled.
    expect((await runConformance({ baseUrl: url, privateKey: KEY })).filter((r) => r.status === "fail")).toEqual([]);
    const [earlier] = ex.engine.listOrders(WALLET);
    ex.clock.advanceSec(301);
    const origin = url.replace("/api/v1", "");
    const pageTotal = express();
    pageTotal.get("/api/v1/orders", async (req, res) => {
      const r = await fetch(`${origin}${req.originalUrl}`, { headers: { authorization: String(req.headers.authorization) } });
      const b = (await r.json()) as { trades?: unknown[]; total?: number };
      res.status(r.status).json(Array.isArray(b.trades) ? { ...b, total: b.trades.length } : b);
    });
    pageTotal.use(ex.app);
    const results = await runConformance({ baseUrl: await serve(pageTotal), privateKey: KEY });
    const lists = results.find((r) => r.name.startsWith("GET /orders and GET /fills"))!;
    expect(lists.status, formatConformanceTable(results)).toBe("fail");
    expect(lists.detail).toMatch(/limit=1: one trade and the filtered set's total \(2\), got 1 and 1/);
    expect(ex.engine.getOrder(earlier!.trade_id).status).toBe("pending");
    // Against the correct server the kit sees the other order and leaves cancel-all alone.
    ex.clock.advanceSec(1);
    const honest = await runConformance({ baseUrl: url, privateKey: KEY });
    const again = honest.find((r) => r.name.startsWith("GET /orders and GET /fills"))!;
    expect([again.status, again.detail], formatConformanceTable(honest)).toEqual(["pass", expect.stringMatching(/cancel-all not run: the wallet has 2 other open order\(s\)$/)]);
    expect(ex.engine.getOrder(earlier!.trade_id).status).toBe("pending");
  });

  it("a swap quote answered with the spec's 503 (Retry-After, the fixed detail) passes: quoting is down, not wrong", async () => {
    const ex = memory();
    const down = express();
    down.post("/api/v1/swap/quote", (_req, res) => void res.status(503).set("Retry-After", "1").json({ detail: "Service temporarily unavailable; please retry" }));
    down.use(ex.app);
    const results = await runConformance({ baseUrl: await serve(down), readOnly: true });
    const quote = results.find((r) => r.name.startsWith("POST /swap/quote: the quote resource"))!;
    expect(quote.status, formatConformanceTable(results)).toBe("pass");
    expect(quote.detail).toMatch(/503/);
  });

  it("a request that never answers fails its check after timeoutMs, naming it, and the run goes on", async () => {
    const ex = memory();
    const stalled = express();
    stalled.get("/api/v1/fx/rate", () => undefined);
    stalled.use(ex.app);
    const results = await runConformance({ baseUrl: await serve(stalled), readOnly: true, timeoutMs: 300 });
    const fx = results.find((r) => r.name.startsWith("GET /fx/rate"))!;
    expect(fx.status, formatConformanceTable(results)).toBe("fail");
    expect(fx.detail).toMatch(/GET \/fx\/rate\?base=usd&quote=USD: no answer within 0.3 s/);
    expect(results.find((r) => r.name === "unknown route: 404 {detail: Not Found}")!.status).toBe("pass");
  });

  it("a code outside the spec's vocabulary in any response fails the vocabulary check (and only it)", async () => {
    const ex = memory();
    const broken = express();
    // Status and envelope as the spec wants, but an internal code name on the wire.
    broken.post("/api/v1/api-keys/verify", (_req, res) => {
      res.status(401).json({ detail: { detail: "Invalid API key or secret", error_code: "UNAUTHORIZED" } });
    });
    broken.use(ex.app);
    const results = await runConformance({ baseUrl: await serve(broken), readOnly: true });
    const failed = results.filter((r) => r.status === "fail");
    expect(failed.map((r) => r.name), formatConformanceTable(results)).toEqual(["error codes only from the spec's vocabulary (every response above)"]);
    expect(failed[0]!.detail).toContain('POST /api-keys/verify → 401 detail.error_code = "UNAUTHORIZED"');
    const vocabulary = (await runConformance({ baseUrl: await serve(memory().app), readOnly: true })).find((r) => r.name.startsWith("error codes only"))!;
    expect(vocabulary.status).toBe("pass");
    expect(vocabulary.detail).toMatch(/^\d+ responses$/);
  });

  it("a 5xx on malformed JSON is a failure", async () => {
    const ex = memory();
    const broken = express();
    broken.post("/api/v1/orders/preview", (_req, res) => {
      res.status(500).json({ detail: "boom" });
    });
    broken.use(ex.app);
    const results = await runConformance({ baseUrl: await serve(broken) });
    const bad = results.filter((r) => r.status === "fail").map((r) => r.name);
    expect(bad).toContain("malformed JSON: 4xx, never 5xx");
  });

  it("the bare createMemoryExchange app fails only the check its missing vault and router addresses break (it serves GET /balances)", async () => {
    const results = await runConformance({ baseUrl: await serve(createMemoryExchange({ logger: { error: () => undefined } }).app) });
    expect(results.filter((r) => r.status === "fail").map((r) => r.name)).toEqual(["GET /config shape"]);
  });

  it("usage errors exit 2", async () => {
    const quiet = () => undefined;
    expect(await conformanceCommand([], quiet, quiet)).toBe(2);
    expect(await conformanceCommand(["--base-url", "http://x", "--private-key", "0x12"], quiet, quiet)).toBe(2);
    expect(await conformanceCommand(["--nope"], quiet, quiet)).toBe(2);
    const out: string[] = [];
    const err: string[] = [];
    expect(await conformanceCommand(["--base-url", "not a url"], (s) => out.push(s), (s) => err.push(s))).toBe(2);
    expect(err.join("")).toContain("is not a URL");
    // The control URL given for the base URL (side by side in fakex's info file): said, with the one to give.
    const slip: string[] = [];
    expect(await conformanceCommand(["--base-url", "http://127.0.0.1:9/__fakex"], () => undefined, (s) => slip.push(s))).toBe(2);
    expect(slip.join("")).toBe("fakex conformance: --base-url http://127.0.0.1:9/__fakex is fakex's control URL; give its base_url (http://127.0.0.1:9/api/v1)\n");
    // Why nothing ran goes to stderr; stdout stays for the table (and --help).
    expect(out).toEqual([]);
    expect(await conformanceCommand(["--help"], (s) => out.push(s), (s) => err.push(s))).toBe(0);
    expect(out.join("")).toContain("--base-url");
    // --help says what each flag does and names the environment variables (it gave only the usage line).
    for (const said of ["FAKEX_BASE_URL", "FAKEX_PRIVATE_KEY", "--read-only          only the read checks", "2 on usage errors"]) expect(out.join("")).toContain(said);
  });

  it("a deployment nothing answers at: exit 1 with the network error, not a table of failed checks", async () => {
    // A port that was just free: listen, note it, close.
    const url = await serve(express());
    await new Promise((r) => servers.pop()!.close(r));
    const out: string[] = [];
    const err: string[] = [];
    expect(await conformanceCommand(["--base-url", url, "--read-only"], (s) => out.push(s), (s) => err.push(s))).toBe(1);
    expect(err.join("")).toBe(`fakex conformance: cannot reach ${url}: ECONNREFUSED\n`);
    expect(out).toEqual([]);
  });
});
