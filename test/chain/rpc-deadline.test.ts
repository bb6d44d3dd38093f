// A node that takes the connection and never answers (stopped with SIGSTOP, paused in a
// debugger, hung): the JSON-RPC client gives up at its deadline with an error that counts
// as the node not answering (a 503 to clients), instead of waiting for good.
import { createServer, type Server, type Socket } from "node:net";
import { afterAll, afterEach, beforeAll, expect, test, vi } from "vitest";
import { EXECUTOR_KEY } from "../../fixtures/accounts.ts";
import { AnvilChainPort } from "../../sim/chain/anvil.ts";
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

/**
 * The deadlines the client arms (AbortSignal.timeout's argument), each armed signal firing
 * after 100 ms instead: what the default is, without waiting it out.
 */
function recordDeadlines(): number[] {
  const armed: number[] = [];
  const timeout = AbortSignal.timeout.bind(AbortSignal);
  vi.spyOn(AbortSignal, "timeout").mockImplementation((ms) => {
    armed.push(ms);
    return timeout(100);
  });
  return armed;
}

afterEach(() => {
  vi.restoreAllMocks();
});

test("without a deadline given, a call and a batch wait 30 s (README: a request that needs a node silent that long answers 503)", async () => {
  const armed = recordDeadlines();
  const rpc = new JsonRpcClient(url);
  // The signal is armed before the request is sent: a call without one would wait for good.
  const call = rpc.call("eth_blockNumber").then(
    () => null,
    (e: unknown) => e as Error,
  );
  expect(armed).toEqual([30_000]);
  expect((await call)?.message).toBe(`the chain node at ${url} did not answer eth_blockNumber within 30 s (stopped, paused or hung)`);
  const batch = rpc.batch([{ method: "evm_snapshot", params: [] }, { method: "eth_coinbase", params: [] }]).then(
    () => null,
    (e: unknown) => e as Error,
  );
  expect(armed).toEqual([30_000, 30_000]);
  expect((await batch)?.message).toBe(`the chain node at ${url} did not answer a batch of 2 calls (evm_snapshot, ...) within 30 s (stopped, paused or hung)`);
});

test("mining waits 30 s and 20 ms a block more (many blocks take minutes on a slow machine)", async () => {
  const armed = recordDeadlines();
  // No contract is called: any address will do.
  const contract = "0x0000000000000000000000000000000000000001";
  const port = new AnvilChainPort({ rpcUrl: url, chainId: 31337, deployment: { exchange: contract, vault: contract, feeRecipient: contract, domainName: "Sera" }, executorKey: EXECUTOR_KEY });
  const failed = await port.mine(500).then(
    () => null,
    (e: unknown) => e as Error,
  );
  expect(armed).toEqual([40_000]);
  expect(failed).toBeInstanceOf(NodeNotAnsweringError);
  expect(failed?.message).toBe(`the chain node at ${url} did not answer anvil_mine within 40 s (stopped, paused or hung)`);
});
