// `fakex report`: from a running server (--from) and from a stopped run's state
// directory (--state-dir, where the journal was saved with the rest); the file is
// self-contained (no URL outside itself) and holds the run's orders, fills, tx hashes
// and requests. (That it renders in a browser: viewer.browser.test.ts.)
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { main } from "../../fixtures/cli.ts";
import { capturedOutput } from "../fixtures/captured-output.ts";
import { createFakeExchange } from "../../fixtures/fake-exchange.ts";
import { STATE_FILE } from "../../fixtures/state-dir.ts";
import { LOCK_FILE } from "../../fixtures/state-dir-lock.ts";
import { captureRun, renderReport, writeReport } from "../../fixtures/report.ts";
import { assertWithReplay, PropertyFailure } from "../../properties/replay.ts";

const dir = mkdtempSync(join(tmpdir(), "fakex-report-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function reportData(file: string): { data: Record<string, any>; source: string } {
  const html = readFileSync(file, "utf8");
  const m = /<script id="fakex-report" type="application\/json">([\s\S]*?)<\/script>/.exec(html);
  expect(m, "the report embeds its data").not.toBeNull();
  return JSON.parse(m![1]!);
}

describe("fakex report", () => {
  test("--from a running server and --state-dir of the stopped run: the same orders, fills, tx hashes and requests", async () => {
    const stateDir = join(dir, "state");
    const ex = await createFakeExchange({ seed: 29, stateDir, journalSize: 50 });
    let orderId: string;
    let requestId: string;
    let txHash: string;
    try {
      expect(ex.parts.journal.size).toBe(50);
      const m = ex.registry.markets().find((x) => x.baseSymbol === "USDT")!;
      const [a, b] = [ex.accounts[0]!, ex.accounts[1]!];
      await ex.control.fund({ address: a.address, token: m.baseSymbol, amount: 100_000_000n, vault: true });
      await ex.control.fund({ address: b.address, token: m.quoteSymbol, amount: 100_000_000n, vault: true });
      const post = async (path: string, body: unknown) => {
        const res = await fetch(`${ex.baseUrl}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
        return { status: res.status, body: (await res.json()) as any, id: res.headers.get("x-request-id")! };
      };
      for (const [acc, side] of [[a, "ask"], [b, "bid"]] as const) {
        const preview = await post("/orders/preview", ex.newOrder(acc, { symbol: m.symbol, side, amount: "20", price: "1" }));
        const r = await post("/orders", (await ex.signOrder(acc, preview.body)).body);
        expect(r.status).toBe(201);
        orderId = r.body.order_id;
        requestId = r.id;
      }
      await ex.control.settle();
      txHash = ex.parts.engine.fillsOfOrder(orderId!)[0]!.tx_hash!;

      const live = join(dir, "live.html");
      const wrote = await capturedOutput("stdout", () => main(["report", "--from", ex.controlUrl, "--out", live]));
      expect(wrote.value).toBe(0);
      // What the file holds (the run's counts where the file keeps them all).
      const run = (await (await fetch(`${ex.controlUrl}/run`)).json()) as { counts: { orders: number; settlement_batches: number; requests: number } };
      const accounts = (await (await fetch(`${ex.controlUrl}/accounts`)).json()) as { total: number };
      expect(wrote.text).toBe(`fakex report: wrote ${live} (${run.counts.orders} orders, ${run.counts.settlement_batches} settlement batches, ${run.counts.requests} requests, ${accounts.total} accounts)\n`);
      const html = readFileSync(live, "utf8");
      // Self-contained: every script and style is inline; nothing points back at the server.
      expect(html).not.toMatch(/\b(src|href)="(https?:|\/)/);
      expect(html).not.toContain(ex.controlUrl.replace(/\/__fakex$/, "") + "/__fakex/ui");
      const r = reportData(live);
      expect(r.source).toBe(ex.controlUrl);
      expect(r.data["/orders"].orders.map((o: { order_id: string }) => o.order_id)).toContain(orderId!);
      expect(r.data[`/orders/${orderId!}`].fills[0].tx_hash).toBe(txHash);
      expect(r.data[`/requests/${requestId!}`].links.settlement_batches[0].tx_hash).toBe(txHash);
      // A state-changing request makes the server write its state (with the journal) again.
      await post("/orders/preview", ex.newOrder(a, { symbol: m.symbol, side: "ask", amount: "1", price: "2" }));
    } finally {
      await ex.close();
    }

    const stopped = join(dir, "stopped.html");
    const files = () => readdirSync(stateDir, { recursive: true }).map(String).sort();
    const stateBefore = readFileSync(join(stateDir, STATE_FILE));
    const filesBefore = files();
    expect(await main(["report", "--state-dir", stateDir, "--out", stopped])).toBe(0);
    // Read, never written: the next resume finds the run exactly as it stopped (clock mode, downtime).
    expect(readFileSync(join(stateDir, STATE_FILE)).equals(stateBefore)).toBe(true);
    expect(files()).toEqual(filesBefore);
    const s = reportData(stopped);
    expect(s.data[`/orders/${orderId!}`].order.status).toBe("settled");
    expect(s.data[`/orders/${orderId!}`].fills[0].tx_hash).toBe(txHash);
    // The journal came back from the state directory, links and all.
    expect(s.data[`/requests/${requestId!}`].links.orders_created).toEqual([{ order_id: orderId!, status: "settled" }]);
    expect(s.data[`/requests/${requestId!}`].links.settlement_batches[0].tx_hash).toBe(txHash);
  });

  test("needs exactly one of --from and --state-dir (exit 2); --from not an http URL is exit 2; an unreachable server is exit 1; a bad --journal-size is exit 2", async () => {
    expect(await main(["report", "--out", join(dir, "x.html")])).toBe(2);
    expect(await main(["report", "--from", "http://127.0.0.1:9/__fakex", "--state-dir", dir])).toBe(2);
    expect(await main(["report", "--colour", "red"])).toBe(2);
    expect(await main(["report", "--help"])).toBe(0);
    expect(await main(["report", "--from", "http://127.0.0.1:9/__fakex", "--out", join(dir, "y.html")])).toBe(1);
    // Not a URL at all (or not http) is a usage error, before anything is fetched; so is an empty --out.
    expect(await main(["report", "--from", "notaurl", "--out", join(dir, "z.html")])).toBe(2);
    expect(await main(["report", "--from", "ftp://127.0.0.1/__fakex", "--out", join(dir, "z.html")])).toBe(2);
    // An --out in a directory that does not exist: said with the user's own path, before any fetch.
    const missing = join(dir, "no such dir", "r.html");
    const { value: code, text: said } = await capturedOutput("stderr", () => main(["report", "--from", "http://127.0.0.1:9/__fakex", "--out", missing]));
    expect(code).toBe(2);
    expect(said).toBe(`fakex report: --out ${missing}: the directory ${join(dir, "no such dir")} does not exist\n`);
    expect(await main(["report", "--from", "http://127.0.0.1:9/__fakex", "--out", ""])).toBe(2);
    // serve refuses a bad --journal-size before starting anything.
    expect(await main(["serve", "--journal-size", "-1"])).toBe(2);
    expect(await main(["serve", "--journal-size", "lots"])).toBe(2);
  });

  test("--state-dir: a directory without a state is exit 2 and is not created; one a live process holds is exit 2", async () => {
    const missing = join(dir, "never-made");
    expect(await main(["report", "--state-dir", missing, "--out", join(dir, "m.html")])).toBe(2);
    expect(existsSync(missing)).toBe(false);
    const held = mkdtempSync(join(tmpdir(), "fakex-report-held-"));
    writeFileSync(join(held, STATE_FILE), "{}");
    const owner = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"]);
    try {
      writeFileSync(join(held, LOCK_FILE), String(owner.pid));
      expect(await main(["report", "--state-dir", held, "--out", join(dir, "h.html")])).toBe(2);
      // Refused before anything was copied or taken: the lock is still the owner's.
      expect(readFileSync(join(held, LOCK_FILE), "utf8")).toBe(String(owner.pid));
    } finally {
      owner.kill("SIGKILL");
      rmSync(held, { recursive: true, force: true });
    }
  });

  test("--state-dir with a TMPDIR that cannot take the copy: exit 1 naming TMPDIR, and the directory's lock is let go", async () => {
    const held = mkdtempSync(join(tmpdir(), "fakex-report-tmpdir-"));
    writeFileSync(join(held, STATE_FILE), "{}");
    const before = process.env["TMPDIR"];
    const missing = join(held, "no-such-tmp");
    process.env["TMPDIR"] = missing;
    try {
      const { value: code, text: said } = await capturedOutput("stderr", () => main(["report", "--state-dir", held, "--out", join(dir, "t.html")]));
      expect(code).toBe(1);
      expect(said).toBe(`fakex report: cannot make the copy to read in ${missing} (ENOENT); set TMPDIR to a writable folder\n`);
    } finally {
      if (before === undefined) delete process.env["TMPDIR"];
      else process.env["TMPDIR"] = before;
    }
    expect(readdirSync(held)).toEqual([STATE_FILE]);
    rmSync(held, { recursive: true, force: true });
  });

  test("the account page of a wallet seen only in a request (no funds, no role) is captured too: the request's link works offline", async () => {
    const ex = await createFakeExchange({ liquidity: false, users: 1 });
    try {
      const stranger = "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba" as const;
      const auth = await ex.signManageApiKey(stranger, "create", ex.control.now().now);
      const res = await fetch(`${ex.baseUrl}/api-keys`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ ...auth, label: "stranger" }) });
      expect(res.status).toBe(200);
      const { data } = await captureRun(ex.controlUrl);
      expect((data["/accounts"] as { accounts: { owner: string }[] }).accounts.map((a) => a.owner)).not.toContain(auth.owner_address);
      expect((data["/requests"] as { entries: { wallet: string | null }[] }).entries.map((e) => e.wallet)).toContain(auth.owner_address);
      expect(data[`/accounts/${auth.owner_address}`]).toMatchObject({ owner_address: auth.owner_address, role: null, order_count: 0 });
    } finally {
      await ex.close();
    }
  });

  test("captured text that would end the data script early (a request body's \"</script>\") comes back whole from the file", () => {
    // A label, note or header a client sent is in the journal as it was sent.
    const report = { data: { "/requests/r1": { label: "</script><script>alert(1)</script>", note: "<!-- x -->" } }, source: "http://127.0.0.1:1/__fakex", captured_at: "2027-01-01T00:00:00.000Z" };
    const file = join(dir, "script-in-data.html");
    writeFileSync(file, renderReport(report));
    expect(reportData(file)).toEqual(report);
  });

  test("a report that cannot be written (--out names a directory) leaves no temporary file beside it", async () => {
    const ex = await createFakeExchange({ liquidity: false, users: 1 });
    try {
      const target = mkdtempSync(join(dir, "out-is-a-dir-"));
      await expect(writeReport(ex.controlUrl, target)).rejects.toThrow();
      expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
    } finally {
      await ex.close();
    }
  });

  test("a failing property with reportFrom writes the run report beside its replay bundle", async () => {
    const ex = await createFakeExchange({ seed: 31, liquidity: false });
    try {
      await fetch(`${ex.baseUrl}/markets`);
      const replays = join(dir, "replays");
      const failure = await assertWithReplay(
        { module: new URL("../properties/toy-properties.ts", import.meta.url).href, export: "sumStaysSmall" },
        { numRuns: 50 },
        { dir: replays, reportFrom: ex.controlUrl },
      ).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(PropertyFailure);
      const bundle = (failure as PropertyFailure).bundlePath;
      const html = bundle.replace(/\.json$/, ".html");
      expect((failure as PropertyFailure).message).toContain(`run report: ${html}`);
      const r = reportData(html);
      expect(r.source).toBe(ex.controlUrl);
      expect(r.data["/requests"].entries.map((e: { path: string }) => e.path)).toContain("/api/v1/markets");
    } finally {
      await ex.close();
    }
  });
});
