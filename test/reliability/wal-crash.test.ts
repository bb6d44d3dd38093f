// `fakex serve --state-dir` with its write-ahead log, against the real CLI: kill -9 at
// seeded random points of a concurrent workload (bench/crash-test.ts, at a small count:
// the long run is `npx tsx bench/crash-test.ts`), then what the log's tail can look like
// after a crash: an interrupted last record is dropped, a damaged record with records
// after it refuses to start (exit 2) and leaves the directory as it was.
import { describe, expect, test } from "vitest";
import { appendFileSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { runCrashTest } from "../../bench/crash-test.ts";
import { STATE_FILE } from "../../fixtures/state-dir.ts";
import { resolveBootOptions } from "../../fixtures/boot/options.ts";
import { decodeSegment, encodeFrame, listGenerations, segmentPath } from "../../fixtures/wal.ts";
import { killFakexAfterEach, runFakex, untilReady, type FakexProcess } from "../fixtures/cli-process.ts";

killFakexAfterEach();

const ARGS = ["--clock", "virtual", "--auto-settle", "0", "--no-liquidity", "--users", "1"];

interface Info {
  control_url: string;
  rpc_url: string;
}

async function serve(dir: string): Promise<{ p: FakexProcess; control: string; info: Info }> {
  const p = runFakex(["serve", "--state-dir", dir, ...ARGS]);
  await untilReady(p);
  const info = JSON.parse(p.out().slice(p.out().indexOf("\n") + 1)) as Info;
  return { p, control: info.control_url, info };
}

async function rpc<T>(info: Info, method: string, params: unknown[]): Promise<T> {
  const res = await fetch(info.rpc_url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  return ((await res.json()) as { result: T }).result;
}



async function post(url: string, body: unknown): Promise<number> {
  return (await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })).status;
}

async function clock(control: string): Promise<number> {
  return ((await (await fetch(`${control}/clock`)).json()) as { now: number }).now;
}

/** Three acknowledged clock moves, then kill -9: the log holds them after the start-up checkpoint. */
async function crashWithLog(): Promise<{ dir: string; now: number; last: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), "fakex-wal-crash-"));
  const { p, control } = await serve(dir);
  for (const s of [5, 6, 7]) expect(await post(`${control}/clock/advance`, { seconds: s })).toBe(200);
  const now = await clock(control);
  p.child.kill("SIGKILL");
  await p.exited;
  const gens = await listGenerations(dir);
  return { dir, now, last: segmentPath(dir, gens.at(-1)!) };
}

describe("write-ahead log: crashes", () => {
  test("kill -9 at 5 seeded points with requests in flight: every acknowledged request is back, none twice, replays agree", async () => {
    const res = await runCrashTest({ points: 5, seed: 11, verifyEvery: 5, clock: "virtual" });
    expect(res.failures).toEqual([]);
    expect(res.acknowledged.orders).toBeGreaterThan(6);
    expect(res.acknowledged.txs).toBeGreaterThan(0);
  }, 240_000);

  test("a request refused because its body did not parse is refused again on replay, not carried out without a body", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-wal-badbody-"));
    const { p, control, info } = await serve(dir);
    const refused = await fetch(`${control}/mine`, { method: "POST", headers: { "content-type": "application/json" }, body: "{not json" });
    expect(refused.status).toBe(400);
    // An acknowledged request after it: its answer waits until the log (with the refusal) is on disk.
    expect(await post(`${control}/clock/advance`, { seconds: 1 })).toBe(200);
    const head = await rpc<string>(info, "eth_blockNumber", []);
    p.child.kill("SIGKILL");
    await p.exited;
    const back = await serve(dir);
    expect(await rpc<string>(back.info, "eth_blockNumber", [])).toBe(head);
    expect(back.p.err()).not.toContain("answered differently");
  }, 60_000);

  test("journal entries of requests a route fault hit read the same after kill -9 and the replay: status 0, the fault, the bodies sent and got", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-wal-faults-"));
    const { p, control, info } = await serve(dir);
    const base = info.control_url.replace(/\/__fakex$/, "/api/v1");
    const kinds = ["reset", "timeout", 503, "truncate"] as const;
    const rules = kinds.flatMap((fail) => [true, false].map((after_commit) => ({ method: "POST", path: "/api-keys/verify", fail, after_commit, times: 1 })));
    // An answer longer than the journal keeps (4 KiB), cut in half by a truncate after commit.
    rules.push({ method: "POST", path: "/swap/quote/batch", fail: "truncate", after_commit: true, times: 1 });
    // A 200 kB body a fault kept from its route: the journal shows its first 4 KiB (cut inside a
    // two-byte character) and its size, before and after the replay, and the log keeps no more.
    rules.push({ method: "POST", path: "/orders/preview", fail: 503, after_commit: false, times: 1 });
    expect(await post(`${control}/routes`, { rules })).toBe(200);
    const tokens = ((await (await fetch(`${base}/tokens`)).json()) as { tokens: { address: string }[] }).tokens.map((t) => t.address);
    const wallet = "0x00000000000000000000000000000000000000a1";
    const quote = { from_token: tokens[0], to_token: tokens[1], from_amount: "1000000", owner_address: wallet, recipient: wallet, expiration: (await clock(control)) + 600 };
    await fetch(`${base}/swap/quote/batch`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ quotes: Array.from({ length: 50 }, () => quote) }) })
      .then((r) => r.arrayBuffer())
      .catch(() => undefined);
    const big = JSON.stringify({ pad: `x${"é".repeat(100_000)}` });
    expect((await fetch(`${base}/orders/preview`, { method: "POST", headers: { "content-type": "application/json" }, body: big })).status).toBe(503);
    const body = { api_key: "fkx_00000000000000000000000000000000", api_secret: "00" };
    for (let i = 0; i < rules.length - 1; i++) {
      // A held (timeout) request is given up by the client, as a real one would.
      await fetch(`${base}/api-keys/verify`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal: AbortSignal.timeout(1_500) })
        .then((r) => r.arrayBuffer())
        .catch(() => undefined);
    }
    // A body that does not parse: its replay sends a stand-in that does not either, and its entry still shows this one.
    const broken = await fetch(`${base}/api-keys/verify`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"api_key": nope' });
    expect(broken.status).toBe(422);
    // Bytes that are not UTF-8 (and not JSON): kept as bytes, base64, their size as sent, and so after the replay.
    const binary = Buffer.alloc(5000, 0xff);
    expect((await fetch(`${base}/orders/cancel`, { method: "POST", headers: { "content-type": "application/json" }, body: binary })).status).toBe(422);
    // A bare JSON value in bytes that are not UTF-8 ("\xff" in quotes): refused as a bare value, and so in the replay.
    const bare = await fetch(`${base}/api-keys`, { method: "POST", headers: { "content-type": "application/json" }, body: Buffer.from([0x22, 0xff, 0x22]) });
    expect([bare.status, await bare.json()]).toEqual([422, { detail: "Request body must be a JSON object, not a bare JSON value" }]);
    // A bare value longer than the log keeps is refused in those words after the replay too; one in
    // UTF-16 is not JSON at all (JSON is read as UTF-8 whatever the charset says), and so after the replay.
    for (const [body, type, detail] of [
      [JSON.stringify("a".repeat(6000)), "application/json", "Request body must be a JSON object, not a bare JSON value"],
      [Buffer.from('"a"', "utf16le"), "application/json; charset=utf-16le", "Request body is not valid JSON"],
    ] as const) {
      const long = await fetch(`${base}/api-keys`, { method: "POST", headers: { "content-type": type }, body });
      expect([long.status, await long.json()], type).toEqual([422, { detail }]);
    }
    // A compressed text/plain body is not kept: no body shown, before the crash and after the replay (not its stand-in).
    const packed = await fetch(`${base}/api-keys/verify`, { method: "POST", headers: { "content-type": "text/plain", "content-encoding": "gzip" }, body: "not really gzip" });
    expect(packed.status).toBe(422);
    // A client that hangs up mid-body: answered 400 (into the closed socket), and so is its replay.
    const cut = httpRequest(`${base}/api-keys/verify`, { method: "POST", headers: { "content-type": "application/json", "content-length": "100" } });
    cut.on("error", () => undefined);
    const journaled = async () => ((await (await fetch(`${control}/requests/count?path=/api/v1/api-keys/verify&status=400`)).json()) as { count: number }).count;
    const before400 = await journaled();
    // Hung up a moment after the part of the body is on its way (not on a timer from the start: on a busy machine the connection may not be up yet).
    cut.write('{"api_key": "fkx_', () => setTimeout(() => cut.destroy(), 50));
    await expect.poll(journaled, { timeout: 10_000 }).toBe(before400 + 1);
    // An acknowledged request after them, so the log holds them all when the process dies.
    expect(await post(`${control}/clock/advance`, { seconds: 1 })).toBe(200);
    const entriesOf = async (url: string) => {
      const j = (await (await fetch(`${url}/requests?method=POST&limit=50`)).json()) as { entries: Record<string, unknown>[] };
      return j.entries
        .filter((e) => e["path"] !== "/__fakex/clock/advance")
        // A replayed request keeps the id (X-Request-Id) its client was given.
        .map((e) => ({ id: e["id"], path: e["path"], status: e["status"], fault: e["fault"], request_body: e["request_body"], response_body: e["response_body"], rejection: e["rejection"] }));
    };
    const before = await entriesOf(control);
    expect(before).toHaveLength(rules.length + 8);
    expect(before.find((e) => e.path === "/api/v1/orders/cancel")!.request_body).toEqual({ text: binary.subarray(0, 4096).toString("base64"), bytes: 5000, truncated: true, encoding: "base64" });
    const preview = before.find((e) => e.path === "/api/v1/orders/preview")!;
    expect(preview.request_body).toEqual({ text: Buffer.from(big).subarray(0, 4096).toString("utf8"), bytes: Buffer.byteLength(big), truncated: true });
    const logged = (await listGenerations(dir)).reduce((n, g) => n + readFileSync(segmentPath(dir, g)).length, 0);
    expect(logged).toBeLessThan(Buffer.byteLength(big) / 4);
    expect(before.filter((e) => e.status === 0)).toHaveLength(4);
    // Every verify request shows the body its client sent, a fault before commit or not.
    const verifies = before.filter((e) => e.path === "/api/v1/api-keys/verify");
    expect(verifies.map((e) => (e.request_body as { text: string } | null)?.text ?? null).sort()).toEqual([...Array(rules.length - 1).fill(JSON.stringify(body)), '{"api_key": nope', null, null].sort());
    const batch = before.find((e) => e.path === "/api/v1/swap/quote/batch")!;
    expect(batch.fault).toMatchObject({ kind: "truncate", after_commit: true, committed_status: 200 });
    expect(batch.response_body).toMatchObject({ truncated: true });
    p.child.kill("SIGKILL");
    await p.exited;
    const back = await serve(dir);
    expect(await entriesOf(back.control)).toEqual(before);
    expect(back.p.err()).not.toContain("answered differently");
    // New requests are numbered after every replayed one: no id handed out for a logged request comes back.
    const next = Number((await fetch(`${base}/tokens`)).headers.get("x-request-id")!.slice(1));
    expect(next).toBeGreaterThan(Math.max(...before.map((e) => Number(String(e.id).slice(1)))));
  }, 60_000);

  test("a torn last record (an interrupted write) is dropped; everything before it is back", async () => {
    const { dir, now, last } = await crashWithLog();
    const records = decodeSegment(readFileSync(last), last, true).records;
    expect(records).toHaveLength(3);
    // Half a record, as a write cut short by the crash leaves it.
    const frame = encodeFrame({ k: "http", m: "POST", u: "/__fakex/clock/advance", h: {}, b: { seconds: 1000 }, s: 200, t: 0, w: 0 });
    appendFileSync(last, frame.subarray(0, frame.length - 9));
    const back = await serve(dir);
    expect(await clock(back.control)).toBe(now);
    expect(back.p.err()).toContain("dropped a torn tail");
  }, 60_000);

  test("Ctrl-C to the whole process group (as a terminal sends it): fakex, not Anvil first, gets it; the last state write happens and the exit is 0", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-wal-group-"));
    const p = runFakex(["serve", "--state-dir", dir, ...ARGS], { group: true });
    await untilReady(p);
    const control = (JSON.parse(p.out().slice(p.out().indexOf("\n") + 1)) as Info).control_url;
    expect(await post(`${control}/clock/advance`, { seconds: 9 })).toBe(200);
    const now = await clock(control);
    process.kill(-p.child.pid!, "SIGINT");
    expect(await p.exited).toBe(0);
    expect(p.err()).not.toMatch(/exited on its own|fetch failed|HTTP request failed|ECONNREFUSED|ECONNRESET|socket hang up/);
    // The final checkpoint folded the log in: nothing is left to replay.
    const gens = await listGenerations(dir);
    expect(decodeSegment(readFileSync(segmentPath(dir, gens.at(-1)!)), "last", true).records).toEqual([]);
    const back = await serve(dir);
    expect(await clock(back.control)).toBe(now);
  }, 60_000);

  test("resuming cuts a torn tail off on disk before anything else is written, so a second crash during the restart leaves a log that reads", async () => {
    const { dir, last } = await crashWithLog();
    const whole = readFileSync(last).length;
    appendFileSync(last, encodeFrame({ k: "clock", t: 0, w: 0 }).subarray(0, 11));
    const boot = await resolveBootOptions({ stateDir: dir, logger: { error: () => undefined } });
    await boot.unlock?.();
    expect(boot.wal.records).toHaveLength(3);
    expect(readFileSync(last).length).toBe(whole);
  }, 60_000);

  test("a damaged record with records after it: exit 2, naming the file, and the directory is left as it was", async () => {
    const { dir, last } = await crashWithLog();
    const bytes = readFileSync(last);
    // Flip a byte inside the first record's payload (the two after it are intact).
    const damaged = Buffer.from(bytes);
    damaged[12] = damaged[12]! ^ 0x20;
    writeFileSync(last, damaged);
    const state = readFileSync(path.join(dir, STATE_FILE));
    const files = readdirSync(path.join(dir, "wal"));
    const p = runFakex(["serve", "--state-dir", dir, ...ARGS]);
    expect(await p.exited).toBe(2);
    expect(p.err()).toContain("is damaged");
    expect(p.err()).toContain(path.basename(last));
    expect(readFileSync(path.join(dir, STATE_FILE)).equals(state)).toBe(true);
    expect(readFileSync(last).equals(damaged)).toBe(true);
    expect(readdirSync(path.join(dir, "wal"))).toEqual(files);
  }, 60_000);
});
