// Market activity through the real CLI: two `fakex serve --activity` processes with the
// same seed and --start-time, given the same clock steps, end with the same event-log
// hash and the same books; and with the wall clock the agents trade in real time,
// with no request moving the clock (a 1 s server tick).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { killFakexAfterEach, runFakex, untilReady } from "../fixtures/cli-process.ts";
import { cliClient, infoOf, type CliClient } from "../fixtures/cli-client.ts";

killFakexAfterEach();

const ARGS = ["serve", "--clock", "virtual", "--auto-settle", "0", "--seed", "7", "--users", "1", "--start-time", "1767225600", "--activity"];

async function market(c: CliClient): Promise<Record<string, string>> {
  const views: Record<string, string> = {};
  for (let i = 0; i < 6; i++) expect((await c.control("POST", "/clock/advance", { seconds: 45 })).status).toBe(200);
  expect((await c.control("POST", "/settle")).status).toBe(200);
  // The books as a client sees them: a quote through each market, both ways.
  const owner = c.info.accounts[0]!.address.toLowerCase();
  const markets = (await c.api("GET", "/markets")).body.markets as { symbol: string; base_address: string; quote_address: string }[];
  for (const m of markets) {
    for (const [from, to] of [[m.base_address, m.quote_address], [m.quote_address, m.base_address]]) {
      const q = await c.api("POST", "/swap/quote", { from_token: from, to_token: to, from_amount: "1000000", owner_address: owner, recipient: owner, expiration: (await c.now()) + 600 });
      views[`${m.symbol} ${from}`] = q.text;
    }
  }
  views.activity = (await c.control("GET", "/activity")).text;
  views.events = (await c.control("GET", "/events?limit=1000")).text;
  views.hash = (await c.control("GET", "/events/hash")).text;
  return views;
}

describe("fakex serve --activity", () => {
  test("two processes, same seed, start time and clock steps: same hash, same books, same agents", async () => {
    const a = runFakex(ARGS);
    const b = runFakex(ARGS);
    await Promise.all([untilReady(a), untilReady(b)]);
    const [va, vb] = await Promise.all([market(cliClient(infoOf(a))), market(cliClient(infoOf(b)))]);
    for (const k of Object.keys(va)) expect(vb[k], k).toBe(va[k]);
    const activity = JSON.parse(va.activity!);
    expect(activity).toMatchObject({ running: true, step_sec: 30 });
    expect(activity.steps).toBe(9); // 270 s of clock, a step every 30 s
    const types = (JSON.parse(va.events!).events as { type: string }[]).map((e) => e.type);
    expect(types).toContain("fill");
    expect(types).toContain("order_cancel");
  }, 120_000);

  test("--activity with --no-liquidity exits 2 naming both flags", async () => {
    const p = runFakex(["serve", "--activity", "--no-liquidity"]);
    expect(await p.exited).toBe(2);
    expect(p.err()).toContain("--activity");
    expect(p.err()).toContain("--no-liquidity");
    // The same for a scenario that turns liquidity off: refused before Anvil starts, not after.
    const dir = mkdtempSync(join(tmpdir(), "fakex-activity-scenario-"));
    writeFileSync(join(dir, "s.json"), JSON.stringify({ description: "no makers", liquidity: false }));
    const q = runFakex(["serve", "--activity", "--scenario", join(dir, "s.json")]);
    expect(await q.exited).toBe(2);
    expect(q.err()).toContain("the scenario turns liquidity off");
    rmSync(dir, { recursive: true, force: true });
  });

  test("wall clock: the agents step in real time with no request moving the clock", async () => {
    const p = runFakex(["serve", "--activity", "--users", "1", "--seed", "8"]);
    await untilReady(p);
    const c = cliClient(infoOf(p));
    const tuned = await c.control("POST", "/activity", { markets: ["USDT/USDC"], step_sec: 1, takers_per_min: 600 });
    expect(tuned.status).toBe(200);
    const after = (await c.control("GET", "/events?limit=1")).body.total as number;
    // No request at all for a while: only the server's own tick can move the clock and step.
    await new Promise((r) => setTimeout(r, 4000));
    const page = (await c.control("GET", `/events?after=${after}&limit=1000`)).body as { events: { at: number; type: string; data: { reason?: string } }[] };
    // A request's catch-up would run every missed step at one instant; the tick ran them as time passed.
    const requoteTimes = new Set(page.events.filter((e) => e.type === "order_cancel" && e.data.reason === "agent_requote").map((e) => e.at));
    expect(requoteTimes.size).toBeGreaterThanOrEqual(2);
    expect(page.events.some((e) => e.type === "fill")).toBe(true);
    p.child.kill("SIGTERM");
    expect(await p.exited).toBe(0);
  }, 90_000);
});
