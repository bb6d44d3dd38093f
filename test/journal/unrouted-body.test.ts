// Bodies no route reads (a route fault answers before the route runs, or the Content-Type
// is not JSON): the journal shows them when they arrive in time, and nothing waits on a
// client that is slow to send one or sends too much. Over a real socket, since what is
// checked is the connection: a kept-alive one takes its next request after such a body.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import request from "supertest";
import { createMemoryExchange } from "../../sim/http/exchange-app.ts";
import { RequestJournal } from "../../sim/http/journal.ts";
import { RouteFaults } from "../../sim/http/control-faults.ts";
import { setFaultHooks } from "../../sim/http/route-faults-outcome.ts";
import { jsonBody } from "../../sim/http/body.ts";
import { errorHandler } from "../../sim/http/errors.ts";
import { parseInput } from "../../sim/http/validate.ts";
import { Rng } from "../../sim/core/rng.ts";
import { z } from "zod";

const mem = createMemoryExchange({ logger: { error: () => undefined } });
const journal = new RequestJournal(mem.engine);
const faults = new RouteFaults(new Rng("unrouted-body"));
/** Calls of the durable log's hook (a --state-dir server installs one): a fault waits for it. */
let committedCalls = 0;
const app = express();
app.use("/api/v1", journal.middleware());
app.use("/api/v1", (_req, res, next) => {
  setFaultHooks(res, { replay: false, committed: () => new Promise<void>((r) => setImmediate(() => (committedCalls++, r()))) });
  next();
});
app.use("/api/v1", faults.middleware());
app.post("/api/v1/thing", jsonBody(), (req, res) => {
  res.json(parseInput(z.object({ side: z.string() }), req.body, "body"));
});
app.get("/api/v1/ping", (_req, res) => void res.json({ ok: true }));
app.use(errorHandler({ error: () => undefined }));

let server: http.Server;
let port: number;

beforeAll(async () => {
  server = http.createServer(app);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  faults.dropHeld();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

/** One request on `agent`; its status, answer and whether it went over a socket used before. */
function send(agent: http.Agent, method: string, path: string, headers: Record<string, string> = {}, body?: Buffer | string) {
  return new Promise<{ status: number; text: string; reused: boolean; id: string }>((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method, path, agent, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode!, text, reused: req.reusedSocket, id: String(res.headers["x-request-id"]) }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const entry = (id: string) => journal.get(id)!;

describe("bodies no route reads", () => {
  test("after a body past the limit, sent as text/plain or hit by a before-commit fault, a kept-alive connection takes its next request", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const big = Buffer.alloc(1024 * 1024 + 512 * 1024, "x");
      const plain = await send(agent, "POST", "/api/v1/thing", { "content-type": "text/plain" }, big);
      expect(plain.status).toBe(422);
      expect(entry(plain.id).request_body).toBeNull();
      const next = await send(agent, "GET", "/api/v1/ping");
      expect([next.status, next.reused]).toEqual([200, true]);

      faults.set([{ method: "POST", path: "/thing", fail: 503, times: 1 }]);
      const faulted = await send(agent, "POST", "/api/v1/thing", { "content-type": "application/json" }, big);
      expect(faulted.status).toBe(503);
      expect(entry(faulted.id).request_body).toBeNull();
      const after = await send(agent, "GET", "/api/v1/ping");
      expect([after.status, after.reused]).toEqual([200, true]);
    } finally {
      agent.destroy();
    }
  });

  test("a client slow to send its body is not waited for: a before-commit fault answers, and a text/plain body is refused, with no body shown", async () => {
    const started = (headers: Record<string, string>) =>
      new Promise<{ status: number; id: string; req: http.ClientRequest }>((resolve, reject) => {
        const req = http.request({ host: "127.0.0.1", port, method: "POST", path: "/api/v1/thing", headers: { ...headers, "content-length": "1000" } }, (res) => {
          res.resume();
          resolve({ status: res.statusCode!, id: String(res.headers["x-request-id"]), req });
        });
        req.on("error", () => undefined);
        // A tenth of the body, and the rest never: only an answer that does not wait for it ends this.
        req.write("x".repeat(100));
        req.on("close", () => reject(new Error("closed before an answer")));
      });
    faults.set([{ method: "POST", path: "/thing", fail: 503, times: 1 }]);
    const faulted = await started({ "content-type": "application/json" });
    expect(faulted.status).toBe(503);
    faulted.req.destroy();
    const plain = await started({ "content-type": "text/plain" });
    expect(plain.status).toBe(422);
    plain.req.destroy();
    await expect.poll(() => journal.get(plain.id)).toBeDefined();
    expect([entry(faulted.id).request_body, entry(plain.id).request_body]).toEqual([null, null]);
  });

  test("only a body-reading route's error names the Content-Type; a query error of a request with a text/plain body does not", async () => {
    const refused = await request(mem.app).post("/api/v1/orders/preview").set("content-type", "text/plain").send('{"side":"bid"}');
    expect(refused.body.detail).toMatch(/\(the body was sent as Content-Type text\/plain, which is not read: send JSON as application\/json\)$/);
    // A text/plain request whose chunked body turns out empty sent nothing to hint at.
    const empty = await request(mem.app).post("/api/v1/orders/preview").set("content-type", "text/plain").set("transfer-encoding", "chunked").send("");
    expect(empty.body.detail).toBe("request body must be a JSON object");
    const query = await request(mem.app).get("/api/v1/fx/rate?base=1").set("content-type", "text/plain").send("x");
    expect(query.status).toBe(400);
    expect(JSON.stringify(query.body)).not.toContain("Content-Type");
  });

  test("a timeout fault on a client that hangs up while its body is read holds nothing afterwards", async () => {
    faults.set([{ method: "POST", path: "/thing", fail: "timeout", times: 3 }]);
    const before = committedCalls;
    let arrived = 0;
    const count = () => arrived++;
    server.on("request", count);
    for (let i = 0; i < 3; i++) {
      const req = http.request({ host: "127.0.0.1", port, method: "POST", path: "/api/v1/thing", headers: { "content-type": "application/json", "content-length": "1000" } });
      req.on("error", () => undefined);
      req.write("{");
      // Gone while its body is still being read: once the server has the request (on a busy
      // machine a hang-up sooner could come before it, and then no request ever arrives).
      await expect.poll(() => arrived, { timeout: 10_000 }).toBe(i + 1);
      setTimeout(() => req.destroy(), 20);
    }
    server.off("request", count);
    await expect.poll(() => committedCalls, { timeout: 10_000 }).toBe(before + 3);
    await new Promise((r) => setImmediate(r));
    expect((faults as unknown as { held: Set<unknown> }).held.size).toBe(0);
  });
});
