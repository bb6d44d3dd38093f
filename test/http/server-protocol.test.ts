// The HTTP server at the protocol level, on raw sockets: what a client reads when
// Node's parser refuses bytes that follow a request still being answered, and how
// `Expect: 100-continue` is answered for a body the server will refuse.
import type { Server } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createAppServer } from "../../sim/http/server.ts";
import { realTime } from "../../sim/platform/real-time.ts";
import { ALICE, alice, exchange, signedOrder } from "./exchange-harness.ts";

const ex = exchange();
let server: Server;
let port = 0;

beforeAll(async () => {
  server = createAppServer(ex.app);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => {
  server.close();
});

/**
 * Write `bytes` in one go and keep the connection open from this side (as `nc` does):
 * everything the server sends until it closes the connection.
 */
function exchangeBytes(bytes: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(bytes));
    const parts: Buffer[] = [];
    socket.on("data", (c: Buffer) => parts.push(c));
    socket.on("close", () => resolve(Buffer.concat(parts).toString("utf8")));
    socket.on("error", reject);
  });
}

/** The status lines of the answers in `wire`, in order. */
function statusLines(wire: string): string[] {
  return wire.match(/HTTP\/1\.1 \d{3} [^\r]*/g) ?? [];
}

describe("bytes Node's parser refuses after a request in flight", () => {
  it("a signed POST /orders then garbage in the same write: the client reads the 201, then the 400, and the order exists once", async () => {
    const body = JSON.stringify(await signedOrder(ex, alice));
    const before = ex.engine.orderIdsOf(ALICE).length;
    const wire = await exchangeBytes(
      `POST /api/v1/orders HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}GARBAGE\r\n\r\n`,
    );
    expect(statusLines(wire)).toEqual(["HTTP/1.1 201 Created", "HTTP/1.1 400 Bad Request"]);
    expect(wire.endsWith('\r\nConnection: close\r\n\r\n{"detail":"Bad Request"}')).toBe(true);
    expect(ex.engine.orderIdsOf(ALICE).length).toBe(before + 1);
  });

  it("two pipelined requests then garbage: both answers in order, then the 400", async () => {
    const wire = await exchangeBytes("GET /api/v1/system/time HTTP/1.1\r\nHost: x\r\n\r\nGET /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\nGARBAGE\r\n\r\n");
    expect(statusLines(wire)).toEqual(["HTTP/1.1 200 OK", "HTTP/1.1 200 OK", "HTTP/1.1 400 Bad Request"]);
  });

  it("a request after Connection: close is not answered at all: the answer in flight (a 201), then the connection closes", async () => {
    const body = JSON.stringify(await signedOrder(ex, alice));
    const before = ex.engine.orderIdsOf(ALICE).length;
    const wire = await exchangeBytes(
      `POST /api/v1/orders HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}GET /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    expect(statusLines(wire)).toEqual(["HTTP/1.1 201 Created"]);
    expect(wire).toMatch(/\r\nConnection: close\r\n\r\n\{"order_id":"[^"]+"/);
    expect(ex.engine.orderIdsOf(ALICE).length).toBe(before + 1);
  });

  it("a GET after Connection: close: the first answer only", async () => {
    const wire = await exchangeBytes("GET /api/v1/system/time HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(statusLines(wire)).toEqual(["HTTP/1.1 200 OK"]);
    expect(wire).toMatch(/\r\n\r\n\{"timestamp":\d+\}$/);
  });

  it("garbage on an idle connection: the 400 at once, with a Date as Node's answers have", async () => {
    const wire = await exchangeBytes("GARBAGE\r\n\r\n");
    expect(wire).toMatch(/^HTTP\/1\.1 400 Bad Request\r\nContent-Type: application\/json; charset=utf-8\r\nContent-Length: 24\r\nDate: [A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT\r\nConnection: close\r\n\r\n\{"detail":"Bad Request"\}$/);
  });
});

describe("Expect: 100-continue", () => {
  /** Send the head only, then read until the server has answered (the upload never follows). */
  function headOnly(head: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, "127.0.0.1", () => socket.write(head));
      let text = "";
      socket.on("data", (c: Buffer) => {
        text += c.toString("utf8");
        // A whole final answer: its head and its Content-Length of body.
        const m = /\r\n\r\n/.exec(text.replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, ""));
        const length = /\r\nContent-Length: (\d+)\r\n/i.exec(text);
        if (m && length && Buffer.byteLength(text.slice(text.lastIndexOf("\r\n\r\n") + 4)) >= Number(length[1])) socket.destroy();
      });
      socket.on("close", () => resolve(text));
      socket.on("error", reject);
    });
  }

  it("a body declared over the limit: the route's 413 at once, with no 100 Continue and without the upload", async () => {
    const wire = await headOnly(`POST /api/v1/orders HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: ${1024 * 1024 + 1}\r\n\r\n`);
    expect(statusLines(wire)).toEqual(["HTTP/1.1 413 Payload Too Large"]);
    expect(wire).toContain("\r\nAccess-Control-Allow-Origin: *\r\n");
    // The app's own 413 for POST /orders (its typed envelope), and the connection closed: the upload may still come.
    expect(wire).toMatch(/\r\nConnection: close\r\n\r\n\{"detail":\{"detail":"Request body too large","error_code":"TRANSIENT_SETTLEMENT_FAILURE"\}\}$/);
  });

  it("a body within the limit: 100 Continue first, then the answer", async () => {
    const wire = await exchangeBytes('POST /api/v1/orders/preview HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}');
    expect(statusLines(wire)).toEqual(["HTTP/1.1 100 Continue", "HTTP/1.1 400 Bad Request"]);
  });
});

describe("an idle keep-alive connection's timeout", () => {
  /** A server whose idle connections time out after 200 ms, and a raw kept-alive connection to it that has had one answer. */
  async function keptConnection() {
    const quick = createAppServer(ex.app);
    quick.keepAliveTimeout = 200;
    await new Promise<void>((r) => quick.listen(0, "127.0.0.1", r));
    const accepted = new Promise<Socket>((r) => quick.once("connection", r));
    const socket = connect((quick.address() as AddressInfo).port, "127.0.0.1");
    const serverSide = await accepted;
    let wire = "";
    socket.on("data", (c: Buffer) => (wire += c.toString("utf8")));
    const closed = new Promise<void>((r) => socket.on("close", () => r()));
    socket.on("error", () => undefined);
    socket.write("GET /api/v1/system/time HTTP/1.1\r\nHost: x\r\n\r\n");
    while (statusLines(wire).length < 1) await new Promise((r) => setTimeout(r, 5));
    return { quick, serverSide, closed, wire: () => wire };
  }

  it("a connection left idle is closed after the timeout", async () => {
    const c = await keptConnection();
    await c.closed;
    expect(statusLines(c.wire())).toEqual(["HTTP/1.1 200 OK"]);
    c.quick.close();
  });

  it("a timeout that fires long after it was due (the process was paused: a breakpoint, SIGSTOP) counts the idle time again instead of closing", async () => {
    const c = await keptConnection();
    const serverSide = c.serverSide;
    const armed = serverSide.timeout;
    // The process resumes 10 s later: every timer fires at once, this one 9.8 s late.
    const real = realTime.nowMs();
    vi.spyOn(realTime, "nowMs").mockReturnValue(real + 10_000);
    try {
      c.quick.emit("timeout", serverSide);
      await new Promise((r) => setImmediate(r));
      expect(serverSide.destroyed).toBe(false);
      expect(serverSide.timeout).toBe(armed);
    } finally {
      vi.restoreAllMocks();
    }
    // Counted again from the resume, it closes once idle that long.
    await c.closed;
    expect(statusLines(c.wire())).toEqual(["HTTP/1.1 200 OK"]);
    c.quick.close();
  });

  /** Real time as the server reads it, `ahead` ms past the system clock (a pause the process had). */
  function shiftedRealTime(): { ahead: number } {
    const shift = { ahead: 0 };
    const system = realTime.nowMs.bind(realTime);
    vi.spyOn(realTime, "nowMs").mockImplementation(() => system() + shift.ahead);
    return shift;
  }

  /** The server's next idle timeout, once its own listener has acted on it. */
  const nextTimeout = (server: Server) => new Promise<void>((r) => server.once("timeout", () => setImmediate(r)));

  it("Node's own timer firing late re-arms it with the idle time counted from then: the next timeout, on time, closes the connection", async () => {
    const c = await keptConnection();
    const shift = shiftedRealTime();
    try {
      // The process was paused 10 s after the answer: the real timer fires that late.
      shift.ahead = 10_000;
      await nextTimeout(c.quick);
      expect(c.serverSide.destroyed).toBe(false);
      // Re-armed, and idle counted from the resume (the clock stays ahead): it closes once idle that long.
      await c.closed;
    } finally {
      vi.restoreAllMocks();
    }
    expect(statusLines(c.wire())).toEqual(["HTTP/1.1 200 OK"]);
    c.quick.close();
  });

  it("an answer long after its request came counts the idle time from the answer: its first timeout closes the connection", async () => {
    const shift = shiftedRealTime();
    const app = express();
    // The answer is written 10 s after the request came (a slow handler).
    app.get("/slow", (_req, res) => {
      shift.ahead += 10_000;
      res.json({ ok: true });
    });
    const quick = createAppServer(app);
    quick.keepAliveTimeout = 200;
    try {
      await new Promise<void>((r) => quick.listen(0, "127.0.0.1", r));
      const accepted = new Promise<Socket>((r) => quick.once("connection", r));
      const socket = connect((quick.address() as AddressInfo).port, "127.0.0.1");
      socket.on("error", () => undefined);
      let wire = "";
      socket.on("data", (c: Buffer) => (wire += c.toString("utf8")));
      const closed = new Promise<void>((r) => socket.on("close", () => r()));
      const serverSide = await accepted;
      socket.write("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n");
      await nextTimeout(quick);
      expect(serverSide.destroyed).toBe(true);
      await closed;
      expect(statusLines(wire)).toEqual(["HTTP/1.1 200 OK"]);
    } finally {
      vi.restoreAllMocks();
      quick.close();
    }
  });
});
