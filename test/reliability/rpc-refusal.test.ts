// rpc_url once the server takes no more changes (a --state-dir that cannot be written): every
// call, a read too, is answered as JSON-RPC errors a client library reads (code -32603, one
// per call of a batch with its id), with HTTP 503 and the reason, and never reaches the node.
import express from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { rpcProxy } from "../../fixtures/rpc-proxy.ts";

const WHY = "the --state-dir /x could not be written (ENOSPC): this server takes no more changes";

function app(refusal: string | null) {
  let mutations = 0;
  const a = express().use(
    "/rpc",
    rpcProxy({
      // Nothing listens there: a call that got through would fail as "did not answer", not with WHY.
      upstream: "http://127.0.0.1:9",
      automine: () => true,
      mutating: async (_body, forward) => (mutations++, forward()),
      refusal: () => refusal,
    }),
  );
  return { a, mutations: () => mutations };
}

describe("rpc_url after a state-dir failure", () => {
  it("answers a read, a write and a batch with the reason, per call, without forwarding", async () => {
    const { a, mutations } = app(WHY);
    const read = await request(a).post("/rpc").send({ jsonrpc: "2.0", id: 7, method: "eth_blockNumber", params: [] });
    expect(read.status).toBe(503);
    expect(read.body).toEqual({ jsonrpc: "2.0", id: 7, error: { code: -32603, message: WHY } });
    const batch = await request(a)
      .post("/rpc")
      .send([{ jsonrpc: "2.0", id: 1, method: "evm_mine", params: [] }, { jsonrpc: "2.0", id: 2, method: "eth_chainId", params: [] }]);
    expect(batch.status).toBe(503);
    expect(batch.body).toEqual([1, 2].map((id) => ({ jsonrpc: "2.0", id, error: { code: -32603, message: WHY } })));
    expect(mutations()).toBe(0);
  });

  it("without a refusal the call is forwarded (here to nothing: the node's absence is said instead)", async () => {
    const { a, mutations } = app(null);
    const r = await request(a).post("/rpc").send({ jsonrpc: "2.0", id: 1, method: "evm_mine", params: [] });
    expect(r.status).toBe(503);
    expect(r.body.error.message).toMatch(/^the chain node did not answer/);
    expect(mutations()).toBe(1);
  });
});
