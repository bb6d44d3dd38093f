// A toy app under WalPersistence, for tests of the log itself: POST /api/v1/add?n= appends n
// to a list (a change), GET /api/v1/list reads it, and rpc_url is mounted as the server mounts
// it, on a stand-in node that answers every call `true` (and counts them).
import express from "express";
import { onTestFinished } from "vitest";
import { encodeLossless } from "../../fixtures/lossless-json.ts";
import { rpcProxy } from "../../fixtures/rpc-proxy.ts";
import { WalPersistence, type WalPersistenceOptions } from "../../fixtures/wal-persistence.ts";
import { capturedBase } from "./captured-base.ts";

/** `options`: the directory and what a test varies; the clock, version and capture are the list's. `duringRequest` runs inside each add. */
export function toyPersistedApp(options: Omit<WalPersistenceOptions, "clockMs" | "stateVersion" | "capture" | "onFailed">, duringRequest: () => void = () => undefined) {
  const list: number[] = [];
  const failures: unknown[] = [];
  /** The calls the stand-in node was sent. */
  const node = { calls: 0 };
  const p = new WalPersistence({
    ...options,
    onFailed: (e) => failures.push(e),
    clockMs: () => 1_000 + list.length,
    stateVersion: () => list.length,
    capture: async () => ({ ...capturedBase, savedAtMs: list.length, layersJson: encodeLossless({ engine: { orders: [], log: { datas: [] } }, list: [...list] }) }),
  });
  onTestFinished(() => p.close().catch(() => undefined));
  const app = express();
  app.use("/api/v1", p.middleware(1024 * 1024));
  app.post("/api/v1/add", (req, res) => {
    list.push(Number(req.query["n"]));
    duringRequest();
    res.status(201).json({ n: Number(req.query["n"]) });
  });
  app.get("/api/v1/list", (_req, res) => void res.json(list));
  app.use(
    "/rpc",
    rpcProxy({
      upstream: "http://127.0.0.1:9",
      automine: () => true,
      mutating: (body, _forward) =>
        p.rpc(body, async () => {
          node.calls++;
          return { status: 200, text: JSON.stringify({ jsonrpc: "2.0", id: 1, result: true }) };
        }),
      refusal: () => p.refusal(),
    }),
  );
  return { p, app, list, failures, node };
}
