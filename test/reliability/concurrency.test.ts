// The concurrent load (bench/load.ts) at CI size: 32 client loops on loopback
// against the full fake for a fixed request budget, then the invariants:
// conservation, no fill settled twice, no signature accepted twice, each raced
// quote won exactly once with the rest 410. The run is bounded by request count,
// so the mix is the same every time; only the interleaving varies.
import { describe, expect, it } from "vitest";
import { runLoad, type LoadReport } from "../../bench/load.ts";

const REQUESTS = Number(process.env["FAKEX_LOAD_REQUESTS"] ?? 2_500);

describe("32 concurrent clients placing, cancelling, swapping, withdrawing and replaying", () => {
  let report: LoadReport;

  it(`runs ${REQUESTS} requests with no finding`, async () => {
    report = await runLoad({ seed: 11, clients: 32, requests: REQUESTS, seconds: 240, clockStepEveryMs: 500 });
    expect(report.findings).toEqual([]);
    expect(report.requests).toBeGreaterThanOrEqual(REQUESTS);
  }, 300_000);

  it("exercised every kind of request it checks", () => {
    const count = (prefix: string) => [...report.byEndpoint].filter(([k]) => k.startsWith(prefix)).reduce((s, [, n]) => s + n, 0);
    expect(count("POST /orders 201")).toBeGreaterThan(0);
    expect(count("POST /orders/cancel ")).toBeGreaterThan(0);
    expect(count("DELETE /orders/cancel-all 200")).toBeGreaterThan(0);
    expect(count("POST /swap 200")).toBeGreaterThan(0);
    expect(count("POST /withdraw/send 200")).toBeGreaterThan(0);
    // No 5xx and no dropped connection anywhere.
    expect([...report.byEndpoint.keys()].filter((k) => / (0|5\d\d)$/.test(k))).toEqual([]);
  });

  it("raced quotes: one 200 and the rest 410 (or refused alike by every submitter)", () => {
    expect(report.races.total).toBeGreaterThan(0);
    expect(report.races.oneWinner).toBeGreaterThan(0);
    expect(report.races.oneWinner + report.races.noWinner).toBe(report.races.total);
  });

  it("replayed signatures are all rejected", () => {
    expect(report.replays.total).toBeGreaterThan(0);
    expect(report.replays.rejected).toBe(report.replays.total);
  });

  it("every settled fill has exactly one MatchSettled event on chain", () => {
    expect(report.settledFills).toBeGreaterThan(0);
    expect(report.matchSettledEvents).toBe(report.settledFills);
  });
});
