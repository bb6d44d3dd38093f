// Resume paths of createFakeExchange({ stateDir }) in process. What kill -9 leaves
// behind is the checkpoint and the write-ahead log as they were when the last answer
// went out, so each test copies them right after an acknowledgement, lets the server
// carry on (or close), and resumes from the copy.
import { afterEach, describe, expect, test } from "vitest";
import { createHash, randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createWalletClient, erc20Abi, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { createFakeExchange, type FakeExchange } from "../../fixtures/fake-exchange.ts";
import { toAccount } from "../../fixtures/signing.ts";
import { identityConflicts, readStateFile, STATE_FILE } from "../../fixtures/state-dir.ts";
import { crashCopy } from "./crash-copy.ts";
import { walDir } from "../../fixtures/wal.ts";
import type { UnsignedTx } from "../../sim/chain/tx-builder.ts";
import { toViemTx } from "../funds/harness.ts";
import { anvilChildren } from "../fixtures/anvil-children.ts";
import { fundedUsdtPair } from "../fixtures/chain-client.ts";

const open: FakeExchange[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close().catch(() => undefined)));
});

async function start(stateDir: string, extra: Parameters<typeof createFakeExchange>[0] = {}): Promise<FakeExchange> {
  const ex = await createFakeExchange({ liquidity: false, users: 2, stateDir, ...extra });
  open.push(ex);
  return ex;
}

async function rpc(url: string, method: string, params: unknown[] = []): Promise<any> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  return ((await res.json()) as { result: unknown }).result;
}

describe("resuming from a state directory (in process)", () => {
  test("the VL batch limits are part of the saved state: a resume without them (or after kill -9) keeps them, a differing --vl-batch is a conflict", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-vl-"));
    const limits = async (e: FakeExchange) => ((await (await fetch(`${e.baseUrl}/config`)).json()) as { limits: { vl_batch: unknown } }).limits.vl_batch;
    const first = await start(dir, { vlBatch: { min: 1, max: 3 } });
    expect(await limits(first)).toEqual({ min: 1, max: 3 });
    const copy = crashCopy(dir);
    await first.close();
    // Before: a resume took this start's (default) limits, and a logged one-leg batch replayed
    // against them was refused, its acknowledged order lost.
    const resumed = await start(dir);
    expect(await limits(resumed)).toEqual({ min: 1, max: 3 });
    await resumed.close();
    const afterCrash = await start(copy, { vlBatch: { min: 2, max: 50 } });
    expect(await limits(afterCrash)).toEqual({ min: 1, max: 3 });
    expect(identityConflicts((await readStateFile(dir))!.identity, { vlBatch: "2-50" })).toEqual(['--vl-batch: the saved state was made with "1-3", this start asks for "2-50"']);
  }, 120_000);

  test("a checkpoint after a resume writes each order once: the log still names placements by reference", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-refs-"));
    const ex = await start(dir, { clock: "virtual" });
    const { place } = await fundedUsdtPair(ex);
    const [a, b] = [ex.accounts[0]!, ex.accounts[1]!];
    for (let i = 0; i < 3; i++) await place(a, "ask", `1.0${i + 1}`);
    await place(b, "bid", "0.99");
    const refs = () => (readFileSync(path.join(dir, STATE_FILE), "utf8").match(/"\$order"/g) ?? []).length;
    await ex.close();
    open.splice(open.indexOf(ex), 1);
    const before = refs();
    expect(before).toBeGreaterThanOrEqual(4);
    const size = statSync(path.join(dir, STATE_FILE)).size;
    const again = await start(dir, { clock: "virtual" });
    await again.close();
    open.splice(open.indexOf(again), 1);
    expect(refs()).toBe(before);
    // The same state, written again: about the same size (not every order a second time).
    expect(statSync(path.join(dir, STATE_FILE)).size).toBeLessThan(size * 1.05);
  }, 120_000);


  test("a chain whose dump is past 10 MiB (viem's default answer limit) is checkpointed on close and resumed", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-big-"));
    const ex = await start(dir, { clock: "virtual" });
    // 9 MB of incompressible code in ten contracts (Anvil refuses a request past 2 MiB): the
    // dump, hex of gzipped JSON, comes out near 18 MB.
    const codes = Array.from({ length: 10 }, (_, k) => ({ at: `0x00000000000000000000000000000000000b16${k.toString(16).padStart(2, "0")}`, code: `0x${randomBytes(900 * 1024).toString("hex")}` }));
    for (const { at, code } of codes) {
      const set = await fetch(ex.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "anvil_setCode", params: [at, code] }) });
      const setBody = await set.json();
      expect(setBody, JSON.stringify(setBody).slice(0, 300)).toMatchObject({ result: null });
    }
    const dump = (await rpc(ex.parts.anvil.rpcUrl, "anvil_dumpState")) as string;
    expect(dump.length).toBeGreaterThan(12 * 1024 * 1024);
    await ex.close();
    open.splice(open.indexOf(ex), 1);
    const again = await start(dir, { clock: "virtual" });
    for (const { at, code } of codes) {
      const back = (await rpc(again.rpcUrl, "eth_getCode", [at, "latest"])) as string;
      expect(back.length).toBe(code.length);
      expect(back === code).toBe(true);
    }
  }, 120_000);

  test.runIf(process.platform === "linux")("requests that failed because Anvil was gone are not carried out on resume (control 503, /api/v1 503, JSON-RPC)", async () => {
    const before = new Set(anvilChildren());
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-failed-"));
    const ex = await start(dir, { clock: "virtual", logger: { error: () => undefined } });
    const [me, other] = [ex.accounts[0]!, ex.accounts[1]!];
    const json = (url: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
    const fund = () => json(`${ex.controlUrl}/fund`, { address: me.address, token: "USDC", amount: "5000000", vault: true });
    expect((await fund()).status).toBe(200);
    // A signed wallet transfer, ready to broadcast through POST /transfer/send.
    const auth = await ex.signManageApiKey(me, "create", ex.control.now().now);
    const key = (await (await json(`${ex.baseUrl}/api-keys`, { ...auth, label: "t" })).json()) as { api_key: string; api_secret: string };
    const bearer = { authorization: `Bearer ${key.api_key}:${key.api_secret}` };
    const usdc = ex.registry.tokenBySymbol("USDC")!.address;
    const built = (await (await json(`${ex.baseUrl}/transfer`, { token: usdc, to: other.address, amount: "1000", from_address: me.address }, bearer)).json()) as { tx: UnsignedTx };
    const raw = await privateKeyToAccount(me.privateKey).signTransaction(toViemTx(built.tx));
    const balanceOf = (e: FakeExchange) => e.clients.public.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [other.address] });
    const otherBefore = await balanceOf(ex);
    const blockBefore = await ex.clients.public.getBlockNumber();

    const mine = anvilChildren().filter((pid) => !before.has(pid));
    expect(mine).toHaveLength(1);
    process.kill(mine[0]!, "SIGKILL");
    await expect.poll(async () => (await fetch(`${ex.baseUrl}/health`)).status).toBe(503);
    // Each client is told it failed: the control API, /api/v1 and rpc_url.
    const funded = await fund();
    expect(funded.status).toBe(503);
    expect(((await funded.json()) as { detail: string }).detail).toMatch(/^the chain node does not answer/);
    expect((await json(`${ex.baseUrl}/transfer/send`, { raw_tx: raw }, bearer)).status).toBe(503);
    const mined = await json(ex.rpcUrl, { jsonrpc: "2.0", id: 7, method: "evm_mine", params: [] });
    expect(mined.status).toBe(503);
    // A JSON-RPC error a client library reads, not an HTML error page.
    expect(await mined.json()).toEqual({ jsonrpc: "2.0", id: 7, error: { code: -32603, message: expect.stringContaining("the chain node did not answer") } });
    const copy = crashCopy(dir);
    // Stopping cannot write the final checkpoint (no chain to dump) and says what is kept.
    await expect(ex.close()).rejects.toThrow(/final checkpoint could not be written .*write-ahead log .* keeps every acknowledged request/);

    const errors: string[] = [];
    const back = await start(copy, { logger: { error: (message) => errors.push(message) } });
    expect(back.persistence?.resumed).toBe(true);
    // One fund of 5 USDC, no transfer, no extra block: as the clients were told.
    expect(back.parts.engine.vaultAccount(me.address, usdc).available).toBe(5_000_000n);
    expect(await balanceOf(back)).toBe(otherBefore);
    expect(await back.clients.public.getBlockNumber()).toBe(blockBefore);
    expect(errors.filter((e) => e.includes("answered differently"))).toEqual([]);
  }, 60_000);

  test("manual mining: a transaction acknowledged through rpc_url but not mined survives (sent again on resume)", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-manual-"));
    const ex = await start(dir, { blockMode: { kind: "manual" } });
    const token = ex.contracts.tokens["USDC"]!;
    const to = ex.accounts[1]!.address;
    const wallet = createWalletClient({ account: toAccount(ex.accounts[0]!), chain: ex.clients.public.chain, transport: http(ex.rpcUrl) });
    const hash = await wallet.writeContract({ address: token, abi: erc20Abi, functionName: "transfer", args: [to, 4242n], gas: 100_000n });
    // Acknowledged, not mined: only the mempool (which Anvil's dump leaves out) holds it.
    expect(await rpc(ex.rpcUrl, "eth_getTransactionReceipt", [hash])).toBeNull();
    const copy = crashCopy(dir);
    await ex.close();

    const back = await start(copy);
    expect(back.persistence?.resumed).toBe(true);
    expect(back.control.blockMode()).toEqual({ kind: "manual" });
    await back.control.mine(1);
    const receipt = await back.clients.public.getTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    const balance = await back.clients.public.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [to] });
    expect(balance).toBe(1_000_000n * 10n ** 6n + 4242n);
  }, 60_000);

  test("manual mining: a transaction queued behind a nonce gap at the write survives too, and is mined once the gap is filled", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-queued-"));
    const ex = await start(dir, { blockMode: { kind: "manual" } });
    const me = ex.accounts[0]!;
    const to = ex.accounts[1]!.address;
    const wallet = createWalletClient({ account: toAccount(me), chain: ex.clients.public.chain, transport: http(ex.rpcUrl) });
    const nonce = await ex.clients.public.getTransactionCount({ address: me.address as `0x${string}`, blockTag: "pending" });
    // One nonce ahead: the pool holds it as queued, not pending.
    const queued = await wallet.sendTransaction({ to: to as `0x${string}`, value: 7n, nonce: nonce + 1, gas: 21_000n });
    await ex.persistence!.persist();
    const copy = crashCopy(dir);
    await ex.close();

    const back = await start(copy);
    const backWallet = createWalletClient({ account: toAccount(me), chain: back.clients.public.chain, transport: http(back.rpcUrl) });
    const gap = await backWallet.sendTransaction({ to: to as `0x${string}`, value: 5n, nonce, gas: 21_000n });
    await back.control.mine(1);
    expect((await back.clients.public.getTransactionReceipt({ hash: gap })).status).toBe("success");
    expect((await back.clients.public.getTransactionReceipt({ hash: queued })).status).toBe("success");
  }, 60_000);

  test("a start removes the temporary state file a writer killed mid-write left beside the state, and leaves the directory's other files", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-temp-"));
    const ex = await start(dir);
    await ex.close();
    open.splice(open.indexOf(ex), 1);
    writeFileSync(path.join(dir, `${STATE_FILE}.4194303.tmp`), "half a checkpoint");
    writeFileSync(path.join(dir, "notes.tmp"), "the user's");
    await start(dir);
    expect(existsSync(path.join(dir, `${STATE_FILE}.4194303.tmp`))).toBe(false);
    expect(readFileSync(path.join(dir, "notes.tmp"), "utf8")).toBe("the user's");
  }, 60_000);

  test("manual mining: a settlement broadcast that sat in the mempool at the write is mined after resume, once", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-settle-"));
    const ex = await start(dir, { blockMode: { kind: "manual" } });
    const [alice, bob] = [ex.accounts[0]!, ex.accounts[1]!];
    const market = ex.registry.markets().find((m) => m.baseSymbol === "USDT")!;
    await ex.control.fund({ address: alice.address, token: market.base, amount: 100_000_000n, vault: true });
    await ex.control.fund({ address: bob.address, token: market.quote, amount: 100_000_000n, vault: true });
    for (const [who, side] of [[alice, "ask"], [bob, "bid"]] as const) {
      const preview = await fetch(`${ex.baseUrl}/orders/preview`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(ex.newOrder(who, { symbol: market.symbol, side, amount: "25", price: "1" })) });
      const { body } = await ex.signOrder(who, (await preview.json()) as never);
      const placed = await fetch(`${ex.baseUrl}/orders`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      expect(placed.status).toBe(201);
    }
    // One settlement round (as the auto-settler runs it): broadcast, nothing mined yet.
    await ex.parts.engine.settle();
    const [fill] = ex.parts.engine.fillRecords();
    expect(fill!.status).toBe("confirming");
    expect(await rpc(ex.rpcUrl, "eth_getTransactionReceipt", [fill!.txHash])).toBeNull();
    await ex.persistence!.persist();
    const copy = crashCopy(dir);
    await ex.close();

    const back = await start(copy);
    expect(back.parts.engine.fillRecords()[0]!.status).toBe("confirming");
    const summary = await back.control.settle();
    expect(summary.fills).toEqual({ settled: 1 });
    // The very transaction the first server broadcast, not a second one.
    const receipt = await back.clients.public.getTransactionReceipt({ hash: fill!.txHash as `0x${string}` });
    expect(receipt.status).toBe("success");
    expect(back.parts.engine.settlementBatches()).toHaveLength(1);
  }, 60_000);

  test("a scenario's timed events still to come fire after resume; those already fired do not fire again", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-scenario-"));
    const ex = await start(dir, {
      scenario: {
        events: [
          { at: 10, action: "set_health", args: { degraded: true } },
          { at: 20, action: "set_health", args: { degraded: false } },
          { at: 30, action: "set_health", args: { signature_ready: false } },
        ],
      } as never,
    });
    await ex.control.advanceClock(15);
    expect(ex.control.health().status).toBe("degraded");
    // What is on disk after that acknowledged advance.
    await ex.persistence!.persist();
    const copy = crashCopy(dir);
    await ex.close();

    const back = await start(copy);
    expect(back.control.health().status).toBe("degraded");
    expect(back.control.now().now).toBe(ex.control.now().now);
    // Put health back by hand: if the t=10 event fired again on the next advance it would degrade it.
    back.control.setHealth({ degraded: false });
    await back.control.advanceClock(1);
    expect(back.control.health().status).toBe("healthy");
    await back.control.advanceClock(4); // t = 20: degraded false (no change)
    expect(back.control.health()).toMatchObject({ status: "healthy", signature_ready: true });
    await back.control.advanceClock(10); // t = 30
    expect(back.control.health().signature_ready).toBe(false);
  }, 60_000);

  test("a body nested too deeply for JSON.stringify is refused without an error logged, and the log still resumes", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-deep-"));
    const errors: unknown[] = [];
    const ex = await start(dir, { logger: { error: (...a: unknown[]) => errors.push(a) } });
    const deep = `${"[".repeat(6000)}${"]".repeat(6000)}`;
    const refused = await fetch(`${ex.baseUrl}/orders`, { method: "POST", headers: { "content-type": "application/json" }, body: deep });
    expect(refused.status).toBe(400);
    // The spec's envelope, not express's HTML page with the log's stack overflow in it.
    expect(((await refused.json()) as { detail: { detail: string } }).detail.detail).toBe("request body must be a JSON object");
    expect(errors).toEqual([]);
    // The next request is logged as usual, and a crash copy resumes with it.
    expect((await fetch(`${ex.controlUrl}/fund`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ address: ex.accounts[0]!.address, token: "USDC", amount: "7000000", vault: true }) })).status).toBe(200);
    const copy = crashCopy(dir);
    await ex.close();
    const back = await start(copy);
    expect(back.persistence?.resumed).toBe(true);
    expect(back.parts.engine.vaultAccount(ex.accounts[0]!.address, back.registry.tokenBySymbol("USDC")!.address).available).toBe(7_000_000n);
  }, 60_000);

  test("the same addresses, accounts and API keys; a key made after resume is new", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-keys-"));
    const ex = await start(dir);
    const me = ex.accounts[0]!;
    const create = async (e: FakeExchange) => {
      const signed = await e.signManageApiKey(me, "create", e.control.now().now);
      const r = await fetch(`${e.baseUrl}/api-keys`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(signed) });
      expect(r.status).toBe(200);
      return (await r.json()) as { api_key: string; api_secret: string };
    };
    const key = await create(ex);
    const copy = crashCopy(dir);
    await ex.close();
    const back = await start(copy);
    // A new signature (the same one again would be a replay, which the saved store refuses).
    await back.control.advanceClock(1);
    expect(back.contracts).toEqual(ex.contracts);
    expect(back.accounts).toEqual(ex.accounts);
    expect(back.executorId).toBe(ex.executorId);
    const verify = await fetch(`${back.baseUrl}/api-keys/verify`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(key) });
    expect(verify.status).toBe(200);
    const fresh = await create(back);
    expect(fresh.api_key).not.toBe(key.api_key);
    expect(fresh.api_secret).not.toBe(key.api_secret);
  }, 60_000);

  test("after a SIGTERM restart (the key in the checkpoint, no log to replay) keys are drawn on from where the stream was: the same keys as a run without the restart; the port is kept in the state", async () => {
    const create = async (e: FakeExchange) => {
      const signed = await e.signManageApiKey(e.accounts[0]!, "create", e.control.now().now);
      const r = await fetch(`${e.baseUrl}/api-keys`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(signed) });
      expect(r.status).toBe(200);
      return (await r.json()) as { api_key: string; api_secret: string };
    };
    const twoKeys = async (restart: boolean) => {
      const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-keystream-"));
      // A fixed start: the virtual clock otherwise starts at the wall clock, and the two runs'
      // created_at could fall in different seconds.
      let ex = await start(dir, { startTime: "2026-01-01T00:00:00Z" });
      const first = await create(ex);
      if (restart) {
        await ex.close();
        open.splice(open.indexOf(ex), 1);
        // The port the next start asks for first (so the URLs stay the same).
        expect((await readStateFile(dir))!.httpPort).toBe(Number(new URL(ex.baseUrl).port));
        ex = await start(dir);
        expect(ex.persistence!.stats.wal.records).toBe(0);
      }
      // A new signature (the same one again would be a replay, which the store refuses).
      await ex.control.advanceClock(1);
      return [first, await create(ex)];
    };
    const straight = await twoKeys(false);
    expect(straight[1]!.api_key).not.toBe(straight[0]!.api_key);
    expect(await twoKeys(true)).toEqual(straight);
  }, 60_000);

  test("the state records the clock mode it was made with, which a CLI resume without --clock keeps: a wall-clock state says wall", async () => {
    for (const clock of ["wall", "virtual"] as const) {
      const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-clockmode-"));
      const ex = await start(dir, { clock });
      await ex.close();
      open.splice(open.indexOf(ex), 1);
      expect((await readStateFile(dir))!.clockMode).toBe(clock);
    }
  }, 60_000);

  test("a directory without a state file whose log holds no record (its state file removed, or a start cut before its first checkpoint) starts fresh, and that state resumes", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-leftover-"));
    mkdirSync(walDir(dir));
    writeFileSync(path.join(walDir(dir), "0000000007.log"), "");
    const ex = await start(dir);
    expect(ex.persistence!.resumed).toBe(false);
    await ex.close();
    open.splice(open.indexOf(ex), 1);
    const back = await start(dir);
    expect(back.persistence!.resumed).toBe(true);
    expect(back.contracts).toEqual(ex.contracts);
  }, 60_000);

  test("a chain whose dump is over 2 MB (Anvil's limit on a request body, reached after ~5,000 blocks) resumes", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-big-"));
    const ex = await start(dir);
    // Three contracts of 400 kB of code each (bytes that do not compress: the dump is gzipped)
    // make the dump ~2.4 MB of hex, without mining thousands of blocks.
    const bytes = Buffer.concat(Array.from({ length: 12_500 }, (_, i) => createHash("sha256").update(`code ${i}`).digest()));
    const code = `0x${bytes.toString("hex")}` as const;
    const at = (i: number) => `0x${(0xb16 + i).toString(16).padStart(40, "0")}` as const;
    for (let i = 0; i < 3; i++) await ex.clients.test.setCode({ address: at(i), bytecode: code });
    await ex.close();
    const back = await start(dir);
    for (let i = 0; i < 3; i++) expect((await back.clients.public.getCode({ address: at(i) }))?.length).toBe(code.length);
    expect(back.contracts).toEqual(ex.contracts);
  }, 60_000);
});

describe("restores with a state directory", () => {
  async function control(ex: FakeExchange, path: string, body: unknown): Promise<any> {
    const res = await fetch(`${ex.controlUrl}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    expect(res.status, path).toBe(200);
    return res.json();
  }

  test("a restore of a snapshot taken before the last checkpoint survives a crash: the restored state is checkpointed in place of the request's record", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-restore-"));
    const ex = await start(dir);
    const { id } = await control(ex, "/snapshot", {});
    // A checkpoint after the snapshot: the log from here on does not hold its taking.
    await ex.persistence!.persist();
    await control(ex, "/fund", { address: ex.accounts[0]!.address, token: "USDC", amount: "5", vault: true });
    const funded = ex.control.eventHash();
    await control(ex, "/restore", { id });
    const restored = ex.control.eventHash();
    expect(restored).not.toBe(funded);
    const back = await start(crashCopy(dir));
    expect(back.persistence!.stats.replayMismatches).toBe(0);
    expect(back.control.eventHash()).toBe(restored);
  }, 60_000);

  test("snapshot ids keep counting across a restart: an id kept from before answers 404, never a snapshot taken after; after a crash the log's takes come back under their ids", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-ids-"));
    const ex = await start(dir);
    expect((await control(ex, "/snapshot", {})).id).toBe("1");
    await ex.persistence!.persist();
    // Taken after the checkpoint: only the log holds it.
    expect((await control(ex, "/snapshot", {})).id).toBe("2");
    const crashed = crashCopy(dir);
    await ex.close();

    const back = await start(dir);
    const restoreOld = await fetch(`${back.controlUrl}/restore`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id: "1" }) });
    expect(restoreOld.status).toBe(404);
    expect((await control(back, "/snapshot", {})).id).toBe("3");
    await back.close();

    const replayed = await start(crashed);
    // The replayed take is snapshot 2 again, of the same state; snapshot 1 (before the checkpoint) is gone.
    const hash = replayed.control.eventHash();
    await control(replayed, "/fund", { address: replayed.accounts[0]!.address, token: "USDC", amount: "5", vault: true });
    await control(replayed, "/restore", { id: "2" });
    expect(replayed.control.eventHash()).toBe(hash);
    expect((await control(replayed, "/snapshot", {})).id).toBe("3");
  }, 90_000);

  test("a crash after a checkpoint began its log but before its file replaced the old one: both logs are replayed once, and a crash after that resume replays nothing again", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-between-"));
    const ex = await start(dir);
    const me = ex.accounts[0]!.address;
    const usdc = ex.registry.tokenBySymbol("USDC")!.address;
    // The start's checkpoint and its (empty) log.
    const crashed = crashCopy(dir);
    await ex.persistence!.persist();
    await control(ex, "/fund", { address: me, token: "USDC", amount: "5", vault: true });
    // What the crash leaves: the old checkpoint, its log, and the new checkpoint's log with the fund in it.
    cpSync(walDir(dir), walDir(crashed), { recursive: true });
    expect(readdirSync(walDir(crashed)).length).toBe(2);
    const back = await start(crashed);
    expect(back.parts.engine.vaultAccount(me, usdc).available).toBe(5n);
    // kill -9 right after the resume's checkpoint: the fund is in it, and in no log it names.
    const again = await start(crashCopy(crashed));
    expect(again.parts.engine.vaultAccount(me, usdc).available).toBe(5n);
    expect(again.persistence!.stats.replayMismatches).toBe(0);
  }, 60_000);

  test("the same for evm_revert through rpc_url to a chain snapshot taken before the last checkpoint", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-revert-"));
    const ex = await start(dir);
    const who = ex.accounts[1]!.address;
    const before = await rpc(ex.rpcUrl, "eth_getBalance", [who, "latest"]);
    const snap = await rpc(ex.rpcUrl, "evm_snapshot");
    await ex.persistence!.persist();
    await rpc(ex.rpcUrl, "anvil_setBalance", [who, "0x6666"]);
    expect(await rpc(ex.rpcUrl, "evm_revert", [snap])).toBe(true);
    expect(await rpc(ex.rpcUrl, "eth_getBalance", [who, "latest"])).toBe(before);
    const back = await start(crashCopy(dir));
    expect(await rpc(back.rpcUrl, "eth_getBalance", [who, "latest"])).toBe(before);
  }, 60_000);
});

describe("route faults with a state directory", () => {
  async function api(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const res = await fetch(`${base}${path}`, { method, headers: { "content-type": "application/json" }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: res.status, body: await res.json().catch(() => null) };
  }

  async function signedBid(ex: FakeExchange, orderId: string) {
    const m = ex.registry.markets().find((x) => x.baseSymbol === "USDT")!;
    const preview = await api(ex.baseUrl, "POST", "/orders/preview", ex.newOrder(ex.accounts[0]!, { symbol: m.symbol, side: "bid", amount: "20", price: "0.95", orderId }));
    expect(preview.status).toBe(200);
    return (await ex.signOrder(ex.accounts[0]!, preview.body)).body;
  }

  test("an after_commit reset and a reset before commit: later requests are served (the log's lock is free), and a crash copy resumes with the committed order once", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-faults-"));
    const ex = await start(dir);
    expect((await api(ex.controlUrl, "POST", "/fund", { address: ex.accounts[0]!.address, token: "USDC", amount: "1000000000", vault: true })).status).toBe(200);
    const rules = { rules: [{ method: "POST", path: "/orders", fail: "reset", after_commit: true, times: 1 }] };
    expect((await api(ex.controlUrl, "POST", "/routes", rules)).status).toBe(200);
    const committed = await signedBid(ex, "00000000-0000-4000-8000-00000000d001");
    await expect(fetch(`${ex.baseUrl}/orders`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(committed) })).rejects.toThrow();
    // Before commit: nothing happens, and the log's lock is released all the same.
    expect((await api(ex.controlUrl, "POST", "/routes", { rules: [{ method: "POST", path: "/orders", fail: "reset", times: 1 }] })).status).toBe(200);
    const lost = await signedBid(ex, "00000000-0000-4000-8000-00000000d002");
    await expect(fetch(`${ex.baseUrl}/orders`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(lost) })).rejects.toThrow();
    const next = await signedBid(ex, "00000000-0000-4000-8000-00000000d003");
    expect((await api(ex.baseUrl, "POST", "/orders", next)).status).toBe(201);
    const hash = (await api(ex.controlUrl, "GET", "/events/hash")).body.hash as string;
    const copy = crashCopy(dir);

    const back = await start(copy);
    expect(back.persistence?.resumed).toBe(true);
    expect(back.persistence?.stats.replayMismatches).toBe(0);
    expect((await api(back.controlUrl, "GET", "/events/hash")).body.hash).toBe(hash);
    const placed = (id: string) => back.parts.engine.log.since(0).filter((e) => e.type === "order_placed" && e.data["order_id"] === id).length;
    expect(placed(committed.order_id)).toBe(1);
    expect(placed(lost.order_id)).toBe(0);
    expect(placed(next.order_id)).toBe(1);
    // The replay consumed the rules as the first run did: the lost order goes in now.
    expect((await api(back.baseUrl, "POST", "/orders", lost)).status).toBe(201);
  }, 90_000);

  test("a two-hop swap (its order shows under a pair no config lists) survives a checkpoint and a restart", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-twohop-"));
    const ex = await start(dir, { liquidity: true });
    const me = ex.accounts[0]!;
    expect((await api(ex.controlUrl, "POST", "/fund", { address: me.address, token: "EURC", amount: "20000000", vault: true })).status).toBe(200);
    const quote = await api(ex.baseUrl, "POST", "/swap/quote", {
      from_token: ex.contracts.tokens["EURC"],
      to_token: ex.contracts.tokens["USDT"],
      from_amount: "10000000",
      owner_address: me.address,
      recipient: "0x0000000000000000000000000000000000000000",
      expiration: ex.control.now().now + 600,
    });
    expect(quote.status).toBe(200);
    const { body } = await ex.signIntent(me, quote.body);
    const swap = await api(ex.baseUrl, "POST", "/swap", body);
    expect(swap.status).toBe(200);
    await ex.control.settle();
    const tradeId = swap.body.trade_id as string;
    expect(ex.parts.engine.getOrder(tradeId)).toMatchObject({ status: "settled", symbol: "EURC/USDT" });
    await ex.close();

    const back = await start(dir, { liquidity: true });
    expect(back.persistence?.resumed).toBe(true);
    expect(back.parts.engine.getOrder(tradeId)).toMatchObject({ status: "settled", symbol: "EURC/USDT" });
  }, 90_000);

  test("close() with a request in a route fault's delay (it holds the log's lock): the request answers 503, never served, and close does not wait for it", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-delayed-"));
    const ex = await start(dir);
    expect((await api(ex.controlUrl, "POST", "/routes", { rules: [{ method: "GET", path: "/tokens", latency_ms: 60_000 }] })).status).toBe(200);
    const held = fetch(`${ex.baseUrl}/tokens`).then((r) => r.status, () => "dropped");
    // In its delay once the rule has taken it (a fixed wait let a late request find the server closed).
    await expect.poll(() => ex.parts.routeFaults.taken, { timeout: 10_000 }).toBe(1);
    // It holds the log's lock while it waits; close() takes its final checkpoint under that lock.
    await ex.close();
    expect(await held).toBe(503);
    const back = await start(dir);
    expect(back.persistence?.stats.replayMismatches).toBe(0);
  }, 30_000);

  test("close() with requests queued behind a delayed one: none is served or delayed after the close, and close does not wait for their delays", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-queued-"));
    const ex = await start(dir);
    const rules = [
      { method: "GET", path: "/tokens", latency_ms: 60_000 },
      { method: "GET", path: "/markets", latency_ms: 60_000 },
    ];
    expect((await api(ex.controlUrl, "POST", "/routes", { rules })).status).toBe(200);
    const send = (p: string) => fetch(`${ex.baseUrl}${p}`).then((r) => r.status, () => "dropped");
    const first = send("/tokens");
    await expect.poll(() => ex.parts.routeFaults.taken, { timeout: 10_000 }).toBe(1);
    // Behind the first in the log's order: one that a rule would delay too, and one without a rule.
    const queued = [send("/markets"), send("/config")];
    await new Promise((r) => setTimeout(r, 100));
    // Within the test's 30 s, though each delay is 60 s: close waits for neither.
    await ex.close();
    expect(await first).toBe(503);
    // Their clients were cut off with the server's connections, or got the 503.
    for (const got of await Promise.all(queued)) expect([503, "dropped"]).toContain(got);
    const back = await start(dir);
    expect(back.persistence?.stats.replayMismatches).toBe(0);
    // None was served after its client had gone: no 200 in the journal that came back.
    const statuses = (p: string) => back.control.requests({ path: `/api/v1${p}` }).entries.map((e) => e.status);
    expect(statuses("/tokens")).toEqual([503]);
    expect([...statuses("/markets"), ...statuses("/config")].filter((st) => st !== 503)).toEqual([]);
  }, 30_000);
});
