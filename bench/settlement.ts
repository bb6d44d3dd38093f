// Fills settled per second on Anvil through the engine and the Anvil port.
// Many resting makers (asks), crossing takers (bids) that each sweep 20 of them,
// settled in batches of 20 matches; the clock runs from the first submit to the
// last fill confirmed (settled). Set-up (deploy, deposits, signing, matching) is
// not measured.
//
//   npm run bench:settlement                 # automine, 4,000 fills
//   FILLS=2000 BLOCK_MODE=manual npm run bench:settlement
//   PROFILE=1 npm run bench:settlement      # when signing ended vs when all settled
//
// Last line: `fills_per_s: <number>`.
import { performance } from "node:perf_hooks";
import os from "node:os";
import { readFileSync } from "node:fs";
import { createPublicClient, createWalletClient, encodeFunctionData, http } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { startAnvil } from "../fixtures/anvil.ts";
import { deployExchange, localChain } from "../fixtures/deploy.ts";
import { EXECUTOR_KEY, TRADER_KEYS } from "../fixtures/accounts.ts";
import { createAnvilChainPort, type BlockMode } from "../sim/chain/anvil.ts";
import { Exchange, TestToken } from "../sim/chain/artifacts.ts";
import { VirtualClock } from "../sim/core/clock.ts";
import { Engine, type OrderBody } from "../sim/core/engine.ts";
import { validateOrderFields } from "../sim/core/preview.ts";
import { DEFAULT_REGISTRY_CONFIG, Registry } from "../sim/core/registry.ts";
import { Rng } from "../sim/core/rng.ts";
import { ORDER_TYPE, type Address } from "../sim/core/typed-data.ts";
import { limitOrderBody } from "../sim/core/order-body.ts";

const FILLS = Number(process.env["FILLS"] ?? 4000);
const PER_TAKER = 20;
const MODE = (process.env["BLOCK_MODE"] ?? "automine") as BlockMode["kind"];
const EXECUTOR_ID = 1;
const UNIT = 1_000_000n;

async function main(): Promise<void> {
  if (!Number.isInteger(FILLS) || FILLS < PER_TAKER || FILLS % PER_TAKER !== 0) throw new Error(`FILLS must be a multiple of ${PER_TAKER}`);
  if (MODE !== "automine" && MODE !== "manual") throw new Error("BLOCK_MODE must be automine or manual");
  // ANVIL_RPC_URL: measure against a node started by hand (to try Anvil flags); chain id 31337.
  const external = process.env["ANVIL_RPC_URL"];
  const anvil = external ? { rpcUrl: external, chainId: 31337, stop: async () => undefined } : await startAnvil();
  try {
    const maker = privateKeyToAccount(TRADER_KEYS[0]!);
    const taker = privateKeyToAccount(TRADER_KEYS[1]!);
    const registry0 = DEFAULT_REGISTRY_CONFIG;
    const deployment = await deployExchange({
      rpcUrl: anvil.rpcUrl,
      chainId: anvil.chainId,
      tokens: registry0.tokens.map((t) => ({ symbol: t.symbol, decimals: t.decimals, permit: t.permit ?? true })),
      fund: [maker, taker].map((a) => ({ address: a.address.toLowerCase() as Address, units: 100_000_000n })),
    });
    const registry = new Registry(registry0, deployment.tokens);
    const chain = localChain(anvil.chainId, anvil.rpcUrl);
    const pub = createPublicClient({ chain, transport: http(anvil.rpcUrl) });
    const deposit = async (who: PrivateKeyAccount, symbol: string, raw: bigint) => {
      const token = registry.tokenBySymbol(symbol)!.address;
      const w = createWalletClient({ account: who, chain, transport: http(anvil.rpcUrl) });
      await pub.waitForTransactionReceipt({ hash: await w.sendTransaction({ to: token, data: encodeFunctionData({ abi: TestToken.abi, functionName: "approve", args: [deployment.vault, raw] }) }), pollingInterval: 5 });
      const r = await pub.waitForTransactionReceipt({ hash: await w.sendTransaction({ to: deployment.exchange, data: encodeFunctionData({ abi: Exchange.abi, functionName: "depositFund", args: [token, who.address, raw] }) }), pollingInterval: 5 });
      if (r.status !== "success") throw new Error("deposit reverted");
    };
    await deposit(maker, "USDT", BigInt(FILLS) * 10n * UNIT);
    await deposit(taker, "USDC", BigInt(FILLS) * 20n * UNIT);

    const port = await createAnvilChainPort({ rpcUrl: anvil.rpcUrl, chainId: anvil.chainId, deployment, executorKey: EXECUTOR_KEY });
    const clock = new VirtualClock(Number(await port.latestTimestamp()) * 1000);
    const engine = new Engine({ seed: 1, clock, registry, executorId: EXECUTOR_ID, chain: port, cancelCooldownSec: 0, settlementBatchSize: 20 });
    await engine.syncDeposits();

    const m = registry.marketBySymbol("USDT/USDC")!;
    const ids = new Rng("bench-settlement");
    const sign = async (who: PrivateKeyAccount, side: "bid" | "ask", amount: string, price: string): Promise<OrderBody> => {
      const orderId = ids.uuid4();
      const body: OrderBody = limitOrderBody({
        owner: who.address.toLowerCase(),
        side,
        amount,
        price,
        market: m,
        orderId,
        executorId: EXECUTOR_ID,
        expiration: clock.nowSec() + 86_400,
      });
      const { message } = validateOrderFields(body, { registry, nowSec: clock.nowSec(), executorId: EXECUTOR_ID });
      const signature = await who.signTypedData({
        domain: port.domain,
        types: { Order: ORDER_TYPE },
        primaryType: "Order",
        message: { ...message, expiration: Number(message.expiration), feeBps: Number(message.feeBps) },
      });
      return { ...body, signature };
    };
    // Makers at a spread of prices; each taker bid sweeps the next 20 best asks.
    for (let i = 0; i < FILLS; i++) engine.placeOrder(await sign(maker, "ask", "10", (1 + (i % 500) / 10_000).toFixed(4)));
    for (let i = 0; i < FILLS / PER_TAKER; i++) {
      const r = engine.placeOrder(await sign(taker, "bid", String(10 * PER_TAKER), "1.1"));
      if (r.fillIds.length !== PER_TAKER) throw new Error(`taker ${i} made ${r.fillIds.length} fills`);
    }
    if (MODE === "manual") await port.setBlockMode({ kind: "manual" });

    // PROFILE=1: when the last batch was signed (sends overlap signing) and how long
    // signing took in total, vs the whole run.
    const profile = process.env["PROFILE"] === "1" ? { signMs: 0, lastSignedAt: 0 } : null;
    if (profile) {
      const orig = port.submitBatch.bind(port);
      port.submitBatch = async (...a: Parameters<typeof orig>) => {
        const t = performance.now();
        const out = await orig(...a);
        profile.signMs += performance.now() - t;
        profile.lastSignedAt = performance.now();
        return out;
      };
    }
    // PROFILE=1 also replays the run's raw transactions on the pre-run state afterwards:
    // Anvil's own time for them, with no signing or engine work in between.
    const preRun = profile ? await port.snapshot() : null;
    const runCpu0 = anvilCpuMs();
    const t0 = performance.now();
    if (MODE === "manual") {
      await engine.settle();
      await port.mine(1);
      await engine.settle();
    } else {
      await engine.settle();
    }
    const seconds = (performance.now() - t0) / 1000;
    const runCpu = runCpu0 === null ? null : anvilCpuMs()! - runCpu0;

    const fills = engine.fillRecords();
    const settled = fills.filter((f) => f.status === "settled").length;
    if (settled !== FILLS) throw new Error(`only ${settled} of ${FILLS} fills settled: ${JSON.stringify([...new Set(fills.map((f) => `${f.status}:${f.revertReason}`))])}`);
    const head = await port.blockNumber();
    // Anvil-side figures (after the timer): gas of the settlement transactions, per fill
    // and per transaction, and the calldata size; these do not depend on machine load.
    const hashes = engine.settlementBatches().map((b) => b.txHash!);
    const receipts = await port.rpc.batch(hashes.map((h) => ({ method: "eth_getTransactionReceipt", params: [h] })));
    const gasUsed = receipts.reduce((sum, r) => sum + (r.ok ? BigInt((r.result as { gasUsed: string }).gasUsed) : 0n), 0n);
    const sample = await port.rpc.call<{ input: string }>("eth_getTransactionByHash", [hashes[0]]);
    console.log(`machine: ${os.platform()}-${os.arch()}, ${os.cpus().length} vCPU, node ${process.version}`);
    console.log(`mode: ${MODE}, fills: ${FILLS}, batches: ${engine.settlementBatches().length} of ${PER_TAKER}, head block: ${head}`);
    console.log(`elapsed_s: ${seconds.toFixed(3)}`);
    console.log(`gas: ${gasUsed} total, ${gasUsed / BigInt(hashes.length)} per tx, ${gasUsed / BigInt(FILLS)} per fill (incl. 21k base + calldata); calldata ${(sample.input.length - 2) / 2} B per tx; ${(Number(gasUsed) / 1e6 / seconds).toFixed(0)} Mgas/s over the run`);
    if (profile && preRun) {
      const raws = await Promise.all(hashes.map((h) => port.rpc.call<string>("eth_getRawTransactionByHash", [h])));
      await port.revert(preRun);
      const cpu0 = anvilCpuMs();
      const r0 = performance.now();
      // As the port sends a round under automine: paused while sending, one block on resume.
      if (MODE === "automine") await port.rpc.call("evm_setAutomine", [false]);
      for (let i = 0; i < raws.length; i += 20) await port.rpc.batch(raws.slice(i, i + 20).map((raw) => ({ method: "eth_sendRawTransaction", params: [raw] })));
      const sent = performance.now() - r0;
      await port.rpc.call(MODE === "manual" ? "anvil_mine" : "evm_setAutomine", [MODE === "manual" ? "0x1" : true]);
      const last = await port.rpc.call<{ nonce: string }>("eth_getTransactionByHash", [hashes[hashes.length - 1]]);
      while (Number(BigInt(await port.rpc.call<string>("eth_getTransactionCount", [port.executor.address, "latest"]))) <= Number(BigInt(last.nonce))) {
        await new Promise((r) => setTimeout(r, 1));
      }
      const cpu = cpu0 === null ? "" : `, Anvil CPU ${(anvilCpuMs()! - cpu0).toFixed(0)} ms`;
      console.log(`profile_replay_ms: Anvil alone on the same ${raws.length} raw txs in one block: sent ${sent.toFixed(0)}, all mined ${(performance.now() - r0).toFixed(0)}${cpu}`);
    }
    if (profile) console.log(`profile_ms: in submitBatch ${profile.signMs.toFixed(0)} (incl. yields to sends), last batch signed at ${(profile.lastSignedAt - t0).toFixed(0)}, all settled at ${(seconds * 1000).toFixed(0)}${runCpu === null ? "" : `, Anvil CPU during the run ${runCpu.toFixed(0)}`}`);
    console.log(`fills_per_s: ${Math.round(FILLS / seconds)}`);
  } finally {
    await anvil.stop();
  }
}

/** ANVIL_PID (with ANVIL_RPC_URL): the node's CPU time so far (user + system), which load skews far less than wall time. */
function anvilCpuMs(): number | null {
  const pid = process.env["ANVIL_PID"];
  if (!pid) return null;
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (100 Hz)
}

await main();
