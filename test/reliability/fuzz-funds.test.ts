// Fuzzing the funds routes (balances, permit metadata, approve, deposit, tx/send,
// withdraw, withdraw/build, withdraw/send, transfer, transfer/send) with generated
// malformed requests, on one Anvil chain for the file: no unexpected exception, no
// 5xx, statuses the spec allows, error envelopes, and a rejected request changes
// neither the engine nor the chain (no block mined, i.e. nothing broadcast); no
// response carries a code outside the spec's vocabulary.
// Runs: FAKEX_FUZZ_RUNS (default 300; these requests may reach the chain node).

import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp, startFundsChain, type FundsApp, type FundsChain } from "../funds/harness.ts";
import { ROUTES, allowedStatuses, hasErrorEnvelope, requestArb, send, urlOf, type FuzzContext } from "./malformed.ts";
import { strayWireCodes } from "../../properties/wire-vocabulary.ts";
import { stateOf } from "./state.ts";

const RUNS = Number(process.env["FAKEX_FUZZ_RUNS"] ?? 300);

describe("fuzzed malformed requests against the funds routes (Anvil)", () => {
  let c: FundsChain;
  let env: FundsApp;
  let server: Server;
  let base: string;
  let ctx: FuzzContext;

  beforeAll(async () => {
    c = await startFundsChain();
    env = await buildApp(c);
    const [owner, other] = c.traders.map((t) => t.address.toLowerCase());
    ctx = {
      owner: owner!,
      other: other!,
      base: c.tokens["EURC"]!.toLowerCase(),
      quote: c.tokens["USDC"]!.toLowerCase(),
      orderId: "3f2504e0-4f89-41d3-9a0c-0305e82c3301",
      uuidInt: "1",
      nowSec: env.clock.nowSec(),
      bearer: env.bearer[0]!,
      otherBearer: env.bearer[1]!,
      apiKey: env.bearer[0]!.slice("Bearer ".length).split(":")[0]!,
      exchange: c.vault.toLowerCase(),
      signature: `0x${"1b".repeat(64)}1b`,
    };
    server = env.app.listen(0, "127.0.0.1");
    await new Promise<void>((ok) => server.once("listening", () => ok()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 60_000);
  afterAll(async () => {
    await new Promise<void>((ok) => (server ? server.close(() => ok()) : ok()));
    await c?.stop();
  });

  it(`answers ${RUNS} generated malformed funds requests within the spec, without exceptions, state change or broadcast`, async () => {
    const routes = ROUTES.filter((r) => r.funds);
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(requestArb(routes, ctx), async (r) => {
        const before = stateOf(env);
        const block = await c.pub.getBlockNumber({ cacheTime: 0 });
        const seen = env.logged.length;
        const res = await send(base, r);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const logged = env.logged.slice(seen).filter((m) => m === "unexpected error");
        let why: string | null = null;
        const stray = strayWireCodes(res.body);
        if (logged.length > 0) why = "unexpected exception logged";
        else if (stray.length > 0) why = `code outside the spec's vocabulary: ${JSON.stringify(stray)}`;
        else if (res.status === 431 && urlOf(r).length > 16_000) why = null;
        else if (res.status >= 500) why = `server error ${res.status}`;
        else if (!allowedStatuses(r).has(res.status)) why = `status ${res.status} not allowed`;
        else if (res.status >= 400) {
          if (stateOf(env) !== before) why = "rejected request changed engine state";
          else if ((await c.pub.getBlockNumber({ cacheTime: 0 })) !== block) why = "rejected request mined a block";
          else if (!hasErrorEnvelope("plain", res.body)) why = "error body lacks {detail}";
        }
        if (why) throw new Error(JSON.stringify({ why, status: res.status, body: res.body, method: r.method, url: urlOf(r).slice(0, 400), reqBody: r.body?.slice(0, 400) }));
      }),
      { numRuns: RUNS, seed: Number(process.env["FAKEX_FUZZ_SEED"] ?? 19), endOnFailure: true },
    );
    expect(env.logged.filter((m) => m === "unexpected error")).toEqual([]);
    expect([...statuses.keys()].some((s) => s >= 400)).toBe(true);
  }, 60_000 + RUNS * 50);
});
