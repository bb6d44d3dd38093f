// A "truncate" route fault on the wire: the client gets the route's status and headers,
// a Content-Length for the whole answer, and then only its first half before the
// connection closes. Read from a raw socket, so the bytes counted are the bytes sent.
import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterEach, describe, expect, test } from "vitest";
import { Rng } from "../../sim/core/rng.ts";
import { RouteFaults } from "../../sim/http/control-faults.ts";
import { faultAnswerBody, faultAnswerStatus } from "../../sim/http/route-faults-outcome.ts";

/** Everything the server sent on one connection, until it closed it. */
function rawExchange(port: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
    const parts: Buffer[] = [];
    socket.on("data", (c: Buffer) => parts.push(c));
    socket.on("close", () => resolve(Buffer.concat(parts).toString("utf8")));
    socket.on("error", reject);
  });
}

const ROUTE_BODY = JSON.stringify({ items: ["alpha", "beta", "gamma", "delta"] });
let close: (() => Promise<void>) | null = null;

afterEach(async () => {
  await close?.();
  close = null;
});

async function serveWithRule(afterCommit: boolean): Promise<number> {
  const faults = new RouteFaults(new Rng("truncate"));
  faults.set([{ method: "GET", path: "/items", fail: "truncate", after_commit: afterCommit }]);
  const app = express();
  app.use("/api/v1", faults.middleware());
  app.get("/api/v1/items", (_req, res) => res.status(200).type("application/json").send(ROUTE_BODY));
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  close = () => new Promise((resolve) => server.close(() => resolve()));
  return (server.address() as AddressInfo).port;
}

describe("route fault: truncate", () => {
  test("after commit: the route's status and full Content-Length, then the first half of its body, then the connection closes", async () => {
    const port = await serveWithRule(true);
    const raw = await rawExchange(port, "/api/v1/items");
    const [head, body] = raw.split("\r\n\r\n") as [string, string];
    expect(head.split("\r\n")[0]).toBe("HTTP/1.1 200 OK");
    expect(head).toContain(`Content-Length: ${Buffer.byteLength(ROUTE_BODY)}`);
    expect(body).toBe(ROUTE_BODY.slice(0, Math.floor(ROUTE_BODY.length / 2)));
  });

  test("before commit: the 503's status and Retry-After, then the first half of its body", async () => {
    const port = await serveWithRule(false);
    const raw = await rawExchange(port, "/api/v1/items");
    const [head, body] = raw.split("\r\n\r\n") as [string, string];
    const full = JSON.stringify({ detail: "Service temporarily unavailable; please retry" });
    expect(head.split("\r\n")[0]).toBe("HTTP/1.1 503 Service Unavailable");
    expect(head).toContain("retry-after: 1");
    expect(head).toContain(`Content-Length: ${full.length}`);
    expect(body).toBe(full.slice(0, Math.floor(full.length / 2)));
  });

  test("what the journal records the client got: the route's status and half its bytes for a truncate, none for a reset or timeout", () => {
    const body = Buffer.from("0123456789");
    expect([faultAnswerStatus("truncate", 201), faultAnswerBody("truncate", body)?.toString()]).toEqual([201, "01234"]);
    expect([faultAnswerStatus("reset", 201), faultAnswerBody("reset", body)]).toEqual([0, null]);
    expect([faultAnswerStatus("timeout", 201), faultAnswerBody("timeout", body)]).toEqual([0, null]);
    expect(faultAnswerStatus("503", 201)).toBe(503);
  });
});
