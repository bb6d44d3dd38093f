// A settlement's transactions reach the node but their answer is lost (the connection cut
// after the node took them, or a node that stopped answering past the deadline): they were
// refused as BROADCAST_FAILED, the fills failed, and the chain carried the match out anyway,
// so the vaults and the ledger disagreed. Those the node has are sent now.
import { createServer, type Server } from "node:http";
import { afterEach, expect, it } from "vitest";
import type { Hex } from "../../sim/core/typed-data.ts";
import { anvilEngine, crossingPair, ledgerMismatches, signedBody, useTestChain, type ChainCtx } from "./helpers.ts";

let ctx: ChainCtx;
useTestChain(3, (c) => (ctx = c));

/**
 * A proxy in front of the node that, once `cutNextSend` is called, cuts the connection of the
 * next eth_sendRawTransaction call: by default after forwarding it (the node has the send, its
 * answer is lost), with "before forwarding" without (the node never got it).
 */
async function cuttingProxy(upstream: string): Promise<{ url: string; cutNextSend: (when?: "before forwarding") => void; cuts: () => number; server: Server }> {
  let armed = false;
  let beforeForwarding = false;
  let cuts = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks);
      if (armed && beforeForwarding && body.includes("eth_sendRawTransaction")) {
        armed = false;
        cuts++;
        req.socket.destroy();
        return;
      }
      const answer = await fetch(upstream, { method: "POST", headers: { "content-type": "application/json" }, body });
      const text = await answer.text();
      if (armed && body.includes("eth_sendRawTransaction")) {
        armed = false;
        cuts++;
        req.socket.destroy();
        return;
      }
      res.writeHead(answer.status, { "content-type": "application/json" }).end(text);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  const cutNextSend = (when?: "before forwarding") => {
    armed = true;
    beforeForwarding = when === "before forwarding";
  };
  return { url: `http://127.0.0.1:${port}`, cutNextSend, cuts: () => cuts, server };
}

let proxy: Server | undefined;
afterEach(() => {
  proxy?.close();
  proxy?.closeAllConnections();
});

it("a settlement whose send answer was lost after the node took it settles, and the vaults equal the ledger", async () => {
  const p = await cuttingProxy(ctx.chain.info.rpcUrl);
  proxy = p.server;
  const env = await anvilEngine(ctx, {}, undefined, p.url);
  const { takerId, alice, bob } = await crossingPair(env);
  p.cutNextSend();
  await env.engine.settle();
  expect(p.cuts()).toBe(1);
  const fill = env.engine.fillsOfOrder(takerId)[0]!;
  expect(fill.settlement_status).toBe("settled");
  expect(await ledgerMismatches(env, [alice, bob])).toEqual([]);
});

it("a settlement whose send never reached the node (cut before forwarding) fails as BROADCAST_FAILED, the vaults equal the ledger, and the next settlement goes through", async () => {
  const p = await cuttingProxy(ctx.chain.info.rpcUrl);
  proxy = p.server;
  const env = await anvilEngine(ctx, {}, undefined, p.url);
  const { takerId, alice, bob } = await crossingPair(env);
  p.cutNextSend("before forwarding");
  await env.engine.settle();
  expect(p.cuts()).toBe(1);
  const fill = env.engine.fillsOfOrder(takerId)[0]!;
  expect([fill.settlement_status, env.engine.getOrder(takerId).error_code]).toEqual(["failed", "TRANSIENT_SETTLEMENT_FAILURE"]);
  expect((await env.port.getReceipt(fill.tx_hash as Hex))?.revertReason).toMatch(/^BROADCAST_FAILED: /);
  expect(await ledgerMismatches(env, [alice, bob])).toEqual([]);
  // The failed fill gave the funds back: the same pair crosses again, and settles (the
  // executor's nonce was counted again from the chain: the unsent one is used, no gap).
  const [aliceKey, bobKey] = ctx.traders;
  env.engine.placeOrder((await signedBody(env, aliceKey!, { side: "ask", amount: "20", price: "1.1" })).body);
  const next = env.engine.placeOrder((await signedBody(env, bobKey!, { side: "bid", amount: "20", price: "1.2" })).body);
  await env.engine.settle();
  expect(env.engine.fillsOfOrder(next.orderId)[0]!.settlement_status).toBe("settled");
  expect(await ledgerMismatches(env, [alice, bob])).toEqual([]);
});
