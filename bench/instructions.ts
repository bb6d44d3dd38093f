// Fixed-work driver for instruction-count A/B runs under valgrind (wall-clock
// figures are noise on a loaded two-core host; retired instructions are not).
// One path per process, on the bench:engine stream, so the count of the path is
//   Ir(--orders N) - Ir(--orders 0)
// (the second run pays the same start-up and warm-up). Prints the event-log hash,
// which must not change with any optimisation.
// --path sign / verify: N signed Orders (native secp256k1) hashed and recovered
// the way POST /orders checks them; verify - sign is the verification's count.
// Usage: valgrind --tool=cachegrind --cache-sim=no node --single-threaded \
//          --hash-seed=1 --random-seed=1 --import tsx bench/instructions.ts --path e2e|place|validate|book --orders 20000
import { OrderBook, Side } from "nodejs-order-book";
import { VirtualClock } from "../sim/core/clock.ts";
import { Engine, type ParsedOrder } from "../sim/core/engine.ts";
import { DEFAULT_REGISTRY_CONFIG, Registry } from "../sim/core/registry.ts";
import { MemoryChain } from "../sim/chain/memory.ts";
import { limitOrderBody } from "../sim/core/order-body.ts";
import { formatUnits } from "../sim/core/amounts.ts";
import { Rng } from "../sim/core/rng.ts";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

const PATH = arg("path", "e2e");
const N = Number(arg("orders", "20000"));
const WARM = 5_000;
const SEED = "42";
const SYMBOL = "EURC/USDC";

// The same stream as bench/engine.ts (seed 42): even positions cross the mid.
function makeStream(n: number) {
  const rng = new Rng(`bench-stream:${SEED}`);
  const out: { side: "bid" | "ask"; ticks: number; lots: number; owner: number; id: string }[] = [];
  for (let i = 0; i < n; i++) {
    const side = rng.chance(0.5) ? "bid" : "ask";
    const off = 1 + rng.int(50);
    const crossing = i % 2 === 0;
    const ticks = side === "bid" ? (crossing ? 110_000 + off : 110_000 - off) : crossing ? 110_000 - off : 110_000 + off;
    out.push({ side, ticks, lots: 1000 + rng.int(99_000), owner: rng.int(64), id: rng.uuid4() });
  }
  return out;
}

const owner = (side: "bid" | "ask", k: number) => `0x${(side === "bid" ? "b" : "a").repeat(2)}${k.toString(16).padStart(38, "0")}`;

function buildEngine(): Engine {
  const clock = new VirtualClock();
  const registry = new Registry(DEFAULT_REGISTRY_CONFIG);
  const engine = new Engine({ seed: SEED, clock, registry, executorId: 1, chain: new MemoryChain({ clock }) });
  const m = registry.marketBySymbol(SYMBOL)!;
  for (const side of ["bid", "ask"] as const) for (let k = 0; k < 64; k++) engine.creditDeposit(owner(side, k), side === "bid" ? m.quote : m.base, 10n ** 30n);
  return engine;
}

const stream = makeStream(WARM + N);
const m = new Registry(DEFAULT_REGISTRY_CONFIG).marketBySymbol(SYMBOL)!;
const expiration = new VirtualClock().nowSec() + 86_400;
const bodies = stream.map((o) =>
  limitOrderBody({ owner: owner(o.side, o.owner), side: o.side, amount: formatUnits(BigInt(o.lots), 2), price: formatUnits(BigInt(o.ticks), 5), market: m, orderId: o.id, executorId: 1, expiration }),
);

// Warm-up on a separate instance (same for every N), then the measured N on a fresh one.
function run(from: number, to: number): string {
  if (PATH === "book") {
    const ob = new OrderBook();
    for (let i = from; i < to; i++) { const o = stream[i]!; ob.limit({ id: o.id, side: o.side === "bid" ? Side.BUY : Side.SELL, size: o.lots, price: o.ticks }); }
    return "-";
  }
  const engine = buildEngine();
  if (PATH === "e2e") for (let i = from; i < to; i++) engine.placeOrder(bodies[i]!);
  else {
    const parsed: ParsedOrder[] = [];
    // validate: the parse is the measured work; place: parsing happens in both runs alike (N and 0 differ only in placing)
    for (let i = from; i < to; i++) parsed.push(engine.validateOrder(bodies[i]!));
    if (PATH === "place") for (const p of parsed) engine.placeParsed(p);
  }
  return engine.log.hash();
}
/** Sign N Orders (both paths), then verify them (verify only); returns how many verified. */
async function signatures(): Promise<string> {
  const { nativeSecp256k1: secp } = await import("../sim/crypto/secp256k1.ts");
  const { verifyTypedSignature, hashTyped } = await import("../sim/signing/signatures.ts");
  const { ORDER_TYPE, ZERO_ADDRESS } = await import("../sim/core/typed-data.ts");
  const { privateKeyToAccount } = await import("viem/accounts");
  if (!secp) throw new Error("native secp256k1 is needed");
  const types = { Order: ORDER_TYPE } as const;
  const domain = { name: "fakex", version: "1", chainId: 31337, verifyingContract: "0x5fbdb2315678afecb367f032d93f642f64180aa3" };
  const key = Buffer.from("11".repeat(32), "hex");
  const user = privateKeyToAccount(`0x${key.toString("hex")}`).address.toLowerCase();
  const signed = stream.map((o, i) => {
    const message = { user, expiration: BigInt(expiration), feeBps: 10n, recipient: ZERO_ADDRESS, fromToken: m.base, toToken: m.quote, fromAmount: BigInt(o.lots) * 10_000n, toAmount: BigInt(o.lots * o.ticks), initialDepositAmount: 0n, uuid: BigInt(i + 1) };
    const s = secp.ecdsaSign(Buffer.from(hashTyped(domain, types, "Order", message).slice(2), "hex"), key);
    return { message, signature: `0x${Buffer.from(s.signature).toString("hex")}${(27 + s.recid).toString(16)}` };
  });
  if (PATH === "sign") return "-";
  let ok = 0;
  for (const s of signed) if ((await verifyTypedSignature({ domain, types, primaryType: "Order", message: s.message, signature: s.signature, expected: user })).valid) ok++;
  if (ok !== signed.length) throw new Error(`${signed.length - ok} signatures did not verify`);
  return `${ok} verified`;
}

let hash: string;
if (PATH === "sign" || PATH === "verify") hash = await signatures();
else {
  run(0, WARM);
  hash = run(WARM, WARM + N);
}
process.stdout.write(`path ${PATH} orders ${N} log hash ${hash}\n`);
