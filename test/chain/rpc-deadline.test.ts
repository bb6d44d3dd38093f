// A node that takes the connection and never answers (stopped with SIGSTOP, paused in a
// debugger, hung): the JSON-RPC client gives up at its deadline with an error that counts
// as the node not answering (a 503 to clients), instead of waiting for good.
import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, expect, test } from "vitest";
import { JsonRpcClient, NodeNotAnsweringError } from "../../sim/chain/anvil-rpc.ts";
import { isNodeUnreachable } from "../../sim/chain/node-unreachable.ts";

let silent: Server;
let url: string;
const sockets: Socket[] = [];

beforeAll(async () => {
  // Reads what it is sent and answers nothing, as a stopped process's listening socket does.
  silent = createServer((socket) => {
    sockets.push(socket);
    socket.resume();
  });
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  const address = silent.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  url = `http://127.0.0.1:${address.port}`;
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => silent.close(resolve));
});

test("a call the node never answers fails at its deadline, naming the node and the call, and counts as the node not answering", async () => {
  const rpc = new JsonRpcClient(url);
  const failed = await rpc.call("eth_blockNumber", [], 200).then(
    () => null,
    (e: unknown) => e,
  );
  expect(failed).toBeInstanceOf(NodeNotAnsweringError);
  expect((failed as Error).message).toBe(`the chain node at ${url} did not answer eth_blockNumber within 0.2 s (stopped, paused or hung)`);
  expect(isNodeUnreachable(failed)).toBe(true);
  // A batch is named by its size and first call.
  const batch = await rpc.batch([{ method: "evm_snapshot", params: [] }, { method: "eth_coinbase", params: [] }], 200).then(
    () => null,
    (e: unknown) => e as Error,
  );
  expect(batch?.message).toBe(`the chain node at ${url} did not answer a batch of 2 calls (evm_snapshot, ...) within 0.2 s (stopped, paused or hung)`);
});
