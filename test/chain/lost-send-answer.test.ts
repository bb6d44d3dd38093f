// A settlement's transactions reach the node but their answer is lost (the connection cut
// after the node took them, or a node that stopped answering past the deadline): they were
// refused as BROADCAST_FAILED, the fills failed, and the chain carried the match out anyway,
// so the vaults and the ledger disagreed. Those the node has are sent now.
import { createServer, type Server } from "node:http";
import { afterEach, expect, it } from "vitest";
import { anvilEngine, crossingPair, ledgerMismatches, useTestChain, type ChainCtx } from "./helpers.ts";

let ctx: ChainCtx;
useTestChain(3, (c) => (ctx = c));

/** A proxy in front of the node that, once `cutNextSend` is set, forwards the next eth_sendRawTransaction call and cuts the connection instead of answering. */
async function cuttingProxy(upstream: string): Promise<{ url: string; cutNextSend: () => void; cuts: () => number; server: Server }> {
  let armed = false;
  let cuts = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks);
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
  return { url: `http://127.0.0.1:${port}`, cutNextSend: () => void (armed = true), cuts: () => cuts, server };
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
