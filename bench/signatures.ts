// Order-signature verifications per second: our hashing + native libsecp256k1, our
// hashing + @noble (JS fallback), and viem's verifyTypedData, in one process.
// Run: npm run bench:signatures   (RUNS=5 SECONDS=1 by default)

import { verifyTypedData } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { EXCHANGE_TYPES, exchangeDomain, type Address, type Hex } from "../sim/core/typed-data.ts";
import {
  hashTyped,
  nativeSignaturesAvailable,
  recoverDigestSigner,
  useSignatureBackend,
  verifyTypedSignature,
} from "../sim/signing/signatures.ts";
import { median } from "./stats.ts";

const RUNS = Number(process.env["RUNS"] ?? 5);
const SECONDS = Number(process.env["SECONDS"] ?? 1);
const SAMPLES = 256;

const domain = exchangeDomain("fakex", 11155111, "0x5fbdb2315678afecb367f032d93f642f64180aa3");
const types = { Order: EXCHANGE_TYPES.Order };

interface Sample {
  message: Record<string, unknown>;
  signature: Hex;
  signer: Address;
}

async function makeSamples(): Promise<Sample[]> {
  const out: Sample[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const key = `0x${(BigInt(i + 1) * 0x9e3779b97f4a7c15n).toString(16).padStart(64, "0")}` as Hex;
    const account = privateKeyToAccount(key);
    // Distinct messages so no cache but the type-hash/domain cache can help.
    const message = {
      user: account.address,
      expiration: 1_800_000_000n + BigInt(i),
      feeBps: 0n,
      recipient: "0x0000000000000000000000000000000000000000" as Address,
      fromToken: "0x1111111111111111111111111111111111111111" as Address,
      toToken: "0x2222222222222222222222222222222222222222" as Address,
      fromAmount: 10n ** 18n + BigInt(i),
      toAmount: 2_500_000_000n + BigInt(i),
      initialDepositAmount: 0n,
      uuid: (1n << 200n) + BigInt(i),
    };
    // viem types uint48 members as number; our messages carry bigint like the contract sees.
    const signature = await account.signTypedData({ domain, types, primaryType: "Order", message: message as never });
    out.push({ message, signature, signer: account.address });
  }
  return out;
}

/** Run `op` over the samples for SECONDS of wall time; return operations per second. */
async function measure(samples: Sample[], op: (s: Sample) => Promise<boolean> | boolean): Promise<number> {
  let n = 0;
  const start = process.hrtime.bigint();
  const budget = BigInt(Math.round(SECONDS * 1e9));
  let elapsed = 0n;
  while (elapsed < budget) {
    for (let i = 0; i < 64; i++) {
      const ok = await op(samples[n % samples.length]!);
      if (!ok) throw new Error("benchmark sample failed to verify");
      n++;
    }
    elapsed = process.hrtime.bigint() - start;
  }
  return n / (Number(elapsed) / 1e9);
}


const samples = await makeSamples();
const variants: Array<[string, (s: Sample) => Promise<boolean> | boolean, () => void]> = [];
if (nativeSignaturesAvailable()) {
  variants.push([
    "native (verifyTypedSignature)",
    async (s) => (await verifyTypedSignature({ domain, types, primaryType: "Order", message: s.message, signature: s.signature, expected: s.signer })).valid,
    () => useSignatureBackend("native"),
  ]);
  variants.push([
    "native (hash+recover, sync)",
    (s) => recoverDigestSigner(hashTyped(domain, types, "Order", s.message), s.signature) === s.signer.toLowerCase(),
    () => useSignatureBackend("native"),
  ]);
}
variants.push([
  "js/@noble (verifyTypedSignature)",
  async (s) => (await verifyTypedSignature({ domain, types, primaryType: "Order", message: s.message, signature: s.signature, expected: s.signer })).valid,
  () => useSignatureBackend("js"),
]);
variants.push([
  "viem verifyTypedData",
  (s) => verifyTypedData({ address: s.signer, domain, types, primaryType: "Order", message: s.message as never, signature: s.signature }),
  () => undefined,
]);

const results = new Map<string, number[]>();
for (let run = 0; run < RUNS; run++) {
  for (const [name, op, setup] of variants) {
    setup();
    const r = await measure(samples, op);
    results.set(name, [...(results.get(name) ?? []), r]);
  }
}

const viemMedian = median(results.get("viem verifyTypedData")!);
console.log(`Order signature verifications/s, ${RUNS} runs x ${SECONDS}s, node ${process.version}, ${process.platform}-${process.arch}`);
for (const [name, rs] of results) {
  const m = median(rs);
  console.log(
    `${name.padEnd(34)} median ${m.toFixed(0).padStart(7)}/s  runs [${rs.map((r) => r.toFixed(0)).join(", ")}]  x${(m / viemMedian).toFixed(1)} vs viem`,
  );
}
