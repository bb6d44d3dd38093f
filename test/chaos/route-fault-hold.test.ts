// A held ("timeout") request never leaks its socket forever: it is destroyed after
// MAX_HOLD_MS when the client never gives up, and the drop timer goes when the client does.
import { EventEmitter } from "node:events";
import { afterEach, describe, expect, test, vi } from "vitest";
import type { Response } from "express";
import { MAX_HOLD_MS, answerWithFault } from "../../sim/http/route-faults-outcome.ts";

function fakeResponse() {
  const res = new EventEmitter() as EventEmitter & { socket: { destroy: ReturnType<typeof vi.fn> } };
  res.socket = { destroy: vi.fn() };
  return res;
}

// fakex's waits use node:timers so that a suite's fake timers leave them alone; here the
// hold's own timer is the subject, so node:timers hands the test's (faked) globals over.
vi.mock("node:timers", async (importOriginal) => ({
  ...(await importOriginal<typeof import("node:timers")>()),
  setTimeout: (...args: Parameters<typeof setTimeout>) => globalThis.setTimeout(...args),
  clearTimeout: (id: Parameters<typeof clearTimeout>[0]) => globalThis.clearTimeout(id),
}));

afterEach(() => {
  vi.useRealTimers();
});

describe("timeout fault: the hold", () => {
  test("a client that never gives up: the socket is destroyed after MAX_HOLD_MS, not before", () => {
    vi.useFakeTimers();
    const res = fakeResponse();
    answerWithFault(res as unknown as Response, "timeout", null);
    vi.advanceTimersByTime(MAX_HOLD_MS - 1);
    expect(res.socket.destroy).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(res.socket.destroy).toHaveBeenCalledTimes(1);
  });

  test("a client that gives up: the response closes and no timer is left behind", () => {
    vi.useFakeTimers();
    const res = fakeResponse();
    answerWithFault(res as unknown as Response, "timeout", null);
    expect(vi.getTimerCount()).toBe(1);
    res.emit("close");
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(MAX_HOLD_MS);
    expect(res.socket.destroy).not.toHaveBeenCalled();
  });
});
