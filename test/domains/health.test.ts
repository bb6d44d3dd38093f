import { describe, expect, it } from "vitest";
import { VirtualClock } from "../../sim/core/clock.ts";
import { ExchangeError } from "../../sim/core/errors.ts";
import { Health } from "../../sim/core/health.ts";

function caught(f: () => unknown): ExchangeError {
  try {
    f();
  } catch (e) {
    if (e instanceof ExchangeError) return e;
    throw e;
  }
  throw new Error("expected an ExchangeError");
}

describe("Health", () => {
  it("is healthy by default with the relayer agreeing", () => {
    const clock = new VirtualClock();
    const h = new Health(clock, { executorId: 3 });
    expect(h.view()).toEqual({
      status: "healthy",
      version: "v1",
      timestamp: "2026-01-01T00:00:00.000Z",
      executor_id: 3,
      relayer_executor_id: 3,
      signature_ready: true,
    });
    clock.advanceSec(5);
    expect(h.view().timestamp).toBe("2026-01-01T00:00:05.000Z");
  });

  it("a null relayer id alone is not degradation", () => {
    const h = new Health(new VirtualClock(), { executorId: 1, relayerExecutorId: null });
    expect(h.view().status).toBe("healthy");
    expect(h.view().relayer_executor_id).toBeNull();
  });

  it("degrades when signatures are not ready", () => {
    const h = new Health(new VirtualClock());
    h.setSignatureReady(false);
    expect(h.view()).toMatchObject({ status: "degraded", signature_ready: false });
    h.setSignatureReady(true);
    expect(h.view().status).toBe("healthy");
  });

  it("degrades when executor and relayer ids disagree", () => {
    const h = new Health(new VirtualClock(), { executorId: 2 });
    h.setRelayerExecutorId(5);
    expect(h.view()).toMatchObject({ status: "degraded", executor_id: 2, relayer_executor_id: 5 });
    expect(h.isHealthy()).toBe(false);
  });

  it("rotating the executor moves the relayer unless it is told to lag", () => {
    const h = new Health(new VirtualClock(), { executorId: 2 });
    h.setExecutorId(7);
    expect(h.executorId).toBe(7);
    expect(h.view()).toMatchObject({ status: "healthy", executor_id: 7, relayer_executor_id: 7 });
    h.setExecutorId(8, false);
    expect(h.view()).toMatchObject({ status: "degraded", executor_id: 8, relayer_executor_id: 7 });
    h.setRelayerExecutorId(null);
    h.setExecutorId(9);
    expect(h.view().relayer_executor_id).toBeNull();
  });

  it("503 UNAVAILABLE while a dependency is down", () => {
    const h = new Health(new VirtualClock());
    h.setDependencyUnavailable(true);
    const e = caught(() => h.view());
    expect(e.status).toBe(503);
    expect(e.code).toBe("UNAVAILABLE");
    h.setDependencyUnavailable(false);
    expect(h.view().status).toBe("healthy");
  });

  it("503 for good once the chain node died or the state directory cannot be written: the switch, a restore and clearing it do not lift it", () => {
    for (const down of [(h: Health) => h.setNodeDown(), (h: Health) => h.setStateDirDown()]) {
      const h = new Health(new VirtualClock());
      const snap = h.snapshot();
      down(h);
      expect(h.unavailable).toBe(true);
      expect(caught(() => h.view()).status).toBe(503);
      h.setDependencyUnavailable(false);
      h.restore(snap);
      expect(caught(() => h.view()).status).toBe(503);
    }
  });

  it("rejects executor ids outside 0-15", () => {
    expect(() => new Health(new VirtualClock(), { executorId: 16 })).toThrow(RangeError);
    expect(() => new Health(new VirtualClock(), { relayerExecutorId: -1 })).toThrow(RangeError);
    const h = new Health(new VirtualClock());
    expect(() => h.setExecutorId(1.5)).toThrow(RangeError);
    expect(() => h.setRelayerExecutorId(99)).toThrow(RangeError);
  });

  it("snapshot/restore", () => {
    const h = new Health(new VirtualClock(), { executorId: 4 });
    const snap = h.snapshot();
    h.setExecutorId(5, false);
    h.setSignatureReady(false);
    h.setDependencyUnavailable(true);
    h.restore(snap);
    expect(h.snapshot()).toEqual({ executorId: 4, relayerExecutorId: 4, signatureReady: true, dependencyUnavailable: false });
    expect(h.view().status).toBe("healthy");
  });

  it("reads and writes the executor id through a source (the engine) when given one", () => {
    const source = { executorId: 6, setExecutorId(id: number) { this.executorId = id; } };
    const h = new Health(new VirtualClock(), {}, source);
    expect(h.view()).toMatchObject({ status: "healthy", executor_id: 6, relayer_executor_id: 6 });
    source.setExecutorId(9); // rotated by the owner: health follows, relayer too
    expect(h.view()).toMatchObject({ status: "healthy", executor_id: 9, relayer_executor_id: 9 });
    h.setExecutorId(2); // rotated through health: lands in the source
    expect(source.executorId).toBe(2);
    const snap = h.snapshot();
    h.setExecutorId(4, false);
    expect(h.view()).toMatchObject({ status: "degraded", executor_id: 4, relayer_executor_id: 2 });
    h.restore(snap);
    expect(source.executorId).toBe(2);
    expect(h.view()).toMatchObject({ status: "healthy", executor_id: 2, relayer_executor_id: 2 });
    expect(() => new Health(new VirtualClock(), { executorId: 1 }, source)).toThrow(RangeError);
  });
});
