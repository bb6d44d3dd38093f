// HTTP order entry: POST /orders requests per second on loopback (signed, valid,
// resting orders; the full app of createMemoryExchange with rate limits switched
// off, served by createAppServer as fakex serve serves its app), next to viem's
// verifyTypedData ops/s in the same process, so the ratio does not depend on the
// machine. Goal: ratio >= 10 (issue 20).
// Run: npm run bench:http   (ORDERS=20000 CONNECTIONS=16 by default)
// The last line is `ratio: <orders/s ÷ verifyTypedData ops/s>`.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AddressInfo } from "node:net";
import autocannon from "autocannon";
import { secp256k1 } from "@noble/curves/secp256k1";
import { verifyTypedData } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { ORDER_TYPE, ZERO_ADDRESS, type Address, type Hex } from "../sim/core/typed-data.ts";
import { standaloneUuidInt } from "../sim/core/uuid-int.ts";
import { Rng } from "../sim/core/rng.ts";
import { createMemoryExchange, MEMORY_EXCHANGE_DEFAULTS } from "../sim/http/exchange-app.ts";
import { hashTyped } from "../sim/signing/signatures.ts";
import { exchangeDomain } from "../sim/core/typed-data.ts";
import { createAppServer } from "../sim/http/server.ts";

const ORDERS = Number(process.env["ORDERS"] ?? 20_000);
const CONNECTIONS = Number(process.env["CONNECTIONS"] ?? 16);
const OWNERS = 8;
const VERIFY_SECONDS = 2;

const d = MEMORY_EXCHANGE_DEFAULTS;
const domain = exchangeDomain(d.domainName, d.chainId, d.exchangeAddress as Address);
const types = { Order: ORDER_TYPE } as const;

function keyOf(i: number): Hex {
  return `0x${(BigInt(i + 1) * 0x9e3779b97f4a7c15n + 7n).toString(16).padStart(64, "0")}`;
}

/** 65-byte r‖s‖v (v 27/28) over an EIP-712 digest. */
function signDigest(digest: Hex, key: Hex): Hex {
  const sig = secp256k1.sign(digest.slice(2), key.slice(2), { lowS: true });
  return `0x${sig.r.toString(16).padStart(64, "0")}${sig.s.toString(16).padStart(64, "0")}${(27 + sig.recovery).toString(16)}`;
}

async function main(): Promise<void> {
  const owners = Array.from({ length: OWNERS }, (_, i) => ({ key: keyOf(i), address: privateKeyToAccount(keyOf(i)).address.toLowerCase() as Address }));
  const ex = createMemoryExchange({
    rateLimits: false,
    logger: { error: (m, meta) => process.stderr.write(`${m} ${JSON.stringify(meta)}\n`) },
    funded: owners.map((o) => ({ owner: o.address, symbol: "EURC", raw: 10n ** 15n })),
  });
  const market = ex.registry.marketBySymbol("EURC/USDC")!;
  const ids = new Rng("bench-http");
  const expiration = ex.clock.nowSec() + 86_400;

  // Pre-sign distinct resting asks (no bids, so nothing crosses): 5 to 9.99 EURC at 1.08 to 1.5.
  process.stderr.write(`signing ${ORDERS} orders...\n`);
  const bodies: string[] = [];
  for (let i = 0; i < ORDERS; i++) {
    const owner = owners[i % OWNERS]!;
    const orderId = ids.uuid4();
    const lots = 500n + BigInt(i % 500); // amount in hundredths
    const ticks = 108_000n + BigInt(i % 42_000); // price in 1e-5
    const uuidInt = standaloneUuidInt(orderId, ex.engine.executorId);
    const fromAmount = lots * 10_000n; // EURC 6 decimals, 2 quantity decimals
    const toAmount = (lots * ticks * 10n ** 6n) / 10n ** 7n; // floored quote raw
    const digest = hashTyped(domain, types, "Order", {
      user: owner.address,
      expiration: BigInt(expiration),
      feeBps: BigInt(ex.registry.feeBps),
      recipient: ZERO_ADDRESS,
      fromToken: market.base,
      toToken: market.quote,
      fromAmount,
      toAmount,
      initialDepositAmount: 0n,
      uuid: uuidInt,
    });
    bodies.push(
      JSON.stringify({
        owner_address: owner.address,
        side: "ask",
        amount: formatHundredths(lots),
        price: formatFixed(ticks, 5),
        order_type: "limit",
        from_address: market.base,
        to_address: market.quote,
        order_id: orderId,
        uuid_int: uuidInt.toString(),
        expiration,
        signature: signDigest(digest, owner.key),
      }),
    );
  }

  // Timed at the server, first request in to last response out: autocannon's own
  // duration includes its worker's start-up and is rounded to its 1 s sampling.
  const server = createAppServer(ex.app);
  let firstNs = 0n;
  let lastNs = 0n;
  let cpuAtFirst = { user: 0, sys: 0 };
  let processCpuAtFirst = process.cpuUsage();
  server.on("request", (_req, res) => {
    if (firstNs === 0n) {
      firstNs = process.hrtime.bigint();
      cpuAtFirst = mainThreadCpu();
      processCpuAtFirst = process.cpuUsage();
    }
    res.on("finish", () => {
      lastNs = process.hrtime.bigint();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;

  // The load generator runs in an autocannon worker thread, so it does not share the
  // server's event loop; its request hook reads the bodies from a file.
  const dir = mkdtempSync(join(tmpdir(), "fakex-bench-http-"));
  const bodiesFile = join(dir, "bodies.jsonl");
  writeFileSync(bodiesFile, bodies.join("\n"));
  process.env["FAKEX_BENCH_BODIES"] = bodiesFile;
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    amount: ORDERS,
    workers: 1,
    requests: [
      {
        method: "POST",
        path: "/api/v1/orders",
        headers: { "content-type": "application/json" },
        setupRequest: fileURLToPath(new URL("./http-next-order.cjs", import.meta.url)),
      },
    ],
  });
  const cpu = mainThreadCpu();
  const processCpu = process.cpuUsage(processCpuAtFirst);
  server.close();
  rmSync(dir, { recursive: true, force: true });
  const ok = result["2xx"];
  const seconds = Number(lastNs - firstNs) / 1e9;
  const ordersPerSec = ok / seconds;
  const resting = ex.engine.depth("EURC/USDC", "ask").reduce((n, l) => n + l.orders, 0);
  process.stdout.write(`POST /orders: ${ok} x 201 (${result.non2xx} non-2xx, ${result.errors} errors) in ${seconds.toFixed(2)} s over ${CONNECTIONS} connections; ${resting} resting\n`);
  process.stdout.write(`POST /orders: ${ordersPerSec.toFixed(0)} orders/s (latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms)\n`);
  // Diagnostic: the server's (main thread's) CPU per request, which moves far less with
  // the neighbours' load than orders/s does (the load generator runs on its own thread).
  const perReq = (ms: number) => ((ms * 1000) / Math.max(1, ok)).toFixed(1);
  const serverMs = cpu.user - cpuAtFirst.user + cpu.sys - cpuAtFirst.sys;
  const otherMs = (processCpu.user + processCpu.system) / 1000 - serverMs;
  process.stdout.write(`server thread CPU per request: ${perReq(serverMs)} µs (user ${perReq(cpu.user - cpuAtFirst.user)}, sys ${perReq(cpu.sys - cpuAtFirst.sys)}); other threads (load generator): ${perReq(otherMs)} µs\n`);
  if (result.non2xx > 0 || resting !== ok) process.stdout.write("WARNING: not every request was a resting 201\n");

  // viem verifyTypedData on the same kind of Order, same process, after the HTTP run.
  const samples: { message: Record<string, unknown>; signature: Hex; address: Address }[] = [];
  for (let i = 0; i < 64; i++) {
    const o = JSON.parse(bodies[i]!) as Record<string, string>;
    const lots = 500n + BigInt(i % 500);
    const ticks = 108_000n + BigInt(i % 42_000);
    samples.push({
      address: o["owner_address"] as Address,
      signature: o["signature"] as Hex,
      message: {
        user: o["owner_address"],
        expiration: BigInt(expiration),
        feeBps: BigInt(ex.registry.feeBps),
        recipient: ZERO_ADDRESS,
        fromToken: market.base,
        toToken: market.quote,
        fromAmount: lots * 10_000n,
        toAmount: (lots * ticks * 10n ** 6n) / 10n ** 7n,
        initialDepositAmount: 0n,
        uuid: BigInt(o["uuid_int"]!),
      },
    });
  }
  for (const s of samples.slice(0, 8)) {
    if (!(await verifyTypedData({ ...s, domain, types, primaryType: "Order", message: s.message as never }))) throw new Error("sample does not verify");
  }
  let n = 0;
  const start = process.hrtime.bigint();
  const until = start + BigInt(VERIFY_SECONDS) * 1_000_000_000n;
  while (process.hrtime.bigint() < until) {
    const s = samples[n % samples.length]!;
    await verifyTypedData({ ...s, domain, types, primaryType: "Order", message: s.message as never });
    n++;
  }
  const verifyPerSec = n / (Number(process.hrtime.bigint() - start) / 1e9);
  process.stdout.write(`viem verifyTypedData: ${verifyPerSec.toFixed(0)} ops/s\n`);
  process.stdout.write(`ratio: ${(ordersPerSec / verifyPerSec).toFixed(2)}\n`);
}

/** User and system CPU ms of this process's main thread (Linux /proc; zeros elsewhere). */
function mainThreadCpu(): { user: number; sys: number } {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime (fields 14 and 15 of stat(5)) in clock ticks of 10 ms.
    return { user: Number(fields[11]) * 10, sys: Number(fields[12]) * 10 };
  } catch {
    return { user: 0, sys: 0 };
  }
}

function formatHundredths(lots: bigint): string {
  return formatFixed(lots, 2);
}

/** units / 10^scale as a canonical decimal (no trailing zeros). */
function formatFixed(units: bigint, scale: number): string {
  const s = units.toString().padStart(scale + 1, "0");
  const frac = s.slice(s.length - scale).replace(/0+$/, "");
  const int = s.slice(0, s.length - scale);
  return frac ? `${int}.${frac}` : int;
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
  process.exit(1);
});
