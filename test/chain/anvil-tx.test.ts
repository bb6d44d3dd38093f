// The hand-written settlement encoder and EIP-1559 signer against viem, byte for byte.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeFunctionData, keccak256, parseTransaction, recoverTransactionAddress } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { compactBatch, encodeMatchBatch, signEip1559 } from "../../sim/chain/anvil-tx.ts";
import { Exchange } from "../../sim/chain/artifacts.ts";
import type { ChainMatch } from "../../sim/chain/port.ts";
import type { Address, Hex, OrderMessage } from "../../sim/core/typed-data.ts";
import { EXECUTOR_KEY } from "../../fixtures/accounts.ts";

const addr = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => `0x${Buffer.from(b).toString("hex")}` as Address);
const u256 = fc.bigInt({ min: 0n, max: 2n ** 256n - 1n });
const u48 = fc.bigInt({ min: 0n, max: 2n ** 48n - 1n });
const bytes = fc.uint8Array({ minLength: 0, maxLength: 140 }).map((b) => `0x${Buffer.from(b).toString("hex")}` as Hex);
const order: fc.Arbitrary<OrderMessage> = fc.record({
  user: addr,
  expiration: u48,
  feeBps: u48,
  recipient: addr,
  fromToken: addr,
  toToken: addr,
  fromAmount: u256,
  toAmount: u256,
  initialDepositAmount: u256,
  uuid: u256,
});
const match: fc.Arbitrary<ChainMatch> = fc.record({ maker: order, makerSignature: bytes, taker: order, takerSignature: bytes, makerAmount: u256, takerAmount: u256 });

const viemOrder = (o: OrderMessage) => ({ ...o, expiration: Number(o.expiration), feeBps: Number(o.feeBps) });

describe("settlement calldata and transactions", () => {
  it("encodeMatchBatch equals viem's encodeFunctionData of the compact batch (batch and atomic)", () => {
    // Matches reuse orders from a small pool, as a sweeping taker does, so deduplication is exercised.
    const pooled = fc.array(fc.record({ order, signature: bytes }), { minLength: 1, maxLength: 4 }).chain((pool) =>
      fc.array(
        fc.record({ maker: fc.nat(pool.length - 1), taker: fc.nat(pool.length - 1), makerAmount: u256, takerAmount: u256 }),
        { minLength: 0, maxLength: 6 },
      ).map((picks) =>
        picks.map((p): ChainMatch => ({
          maker: pool[p.maker]!.order,
          makerSignature: pool[p.maker]!.signature,
          taker: pool[p.taker]!.order,
          takerSignature: pool[p.taker]!.signature,
          makerAmount: p.makerAmount,
          takerAmount: p.takerAmount,
        })),
      ),
    );
    fc.assert(
      fc.property(fc.oneof(fc.array(match, { minLength: 0, maxLength: 4 }), pooled), fc.boolean(), (ms, atomic) => {
        const b = compactBatch(ms);
        const expected = encodeFunctionData({
          abi: Exchange.abi,
          functionName: atomic ? "matchOrdersBatchAtomic" : "matchOrdersBatch",
          args: [b.orders.map(viemOrder), b.signatures, b.fills],
        });
        expect(encodeMatchBatch(ms, atomic)).toBe(expected);
      }),
      { numRuns: 80 },
    );
  });

  it("compactBatch keeps each distinct (order, signature) once and indexes every fill back to its match", () => {
    fc.assert(
      fc.property(fc.array(fc.record({ order, signature: bytes }), { minLength: 1, maxLength: 3 }), fc.array(fc.tuple(fc.nat(2), fc.nat(2), u256, u256), { maxLength: 8 }), (pool, picks) => {
        const ms: ChainMatch[] = picks.map(([a, b, x, y]) => {
          const m = pool[a % pool.length]!;
          const t = pool[b % pool.length]!;
          return { maker: m.order, makerSignature: m.signature, taker: t.order, takerSignature: t.signature, makerAmount: x, takerAmount: y };
        });
        const c = compactBatch(ms);
        const keys = c.orders.map((o, k) => JSON.stringify([o, c.signatures[k]], (_, v) => (typeof v === "bigint" ? v.toString() : v)));
        expect(new Set(keys).size).toBe(keys.length);
        expect(c.fills.length).toBe(ms.length);
        c.fills.forEach((f, i) => {
          expect(c.orders[Number(f.maker)]).toEqual(ms[i]!.maker);
          expect(c.signatures[Number(f.maker)]).toBe(ms[i]!.makerSignature);
          expect(c.orders[Number(f.taker)]).toEqual(ms[i]!.taker);
          expect(c.signatures[Number(f.taker)]).toBe(ms[i]!.takerSignature);
          expect([f.makerAmount, f.takerAmount]).toEqual([ms[i]!.makerAmount, ms[i]!.takerAmount]);
        });
      }),
      { numRuns: 100 },
    );
  });

  it("compactBatch treats orders that encode alike as one: address case, number or bigint, a separate object", () => {
    const o: OrderMessage = { user: `0x${"ab".repeat(20)}`, expiration: 1_900_000_000n, feeBps: 0n, recipient: `0x${"00".repeat(20)}`, fromToken: `0x${"cd".repeat(20)}`, toToken: `0x${"ef".repeat(20)}`, fromAmount: 10n, toAmount: 11n, initialDepositAmount: 0n, uuid: 2n ** 200n };
    const same = { ...o, user: o.user.toUpperCase().replace("0X", "0x"), expiration: 1_900_000_000 } as unknown as OrderMessage;
    const other = { ...o, uuid: o.uuid + 1n };
    const sig = `0x${"1b".repeat(65)}` as Hex;
    const c = compactBatch([
      { maker: o, makerSignature: sig, taker: other, takerSignature: sig, makerAmount: 1n, takerAmount: 2n },
      { maker: same, makerSignature: sig.toUpperCase().replace("0X", "0x") as Hex, taker: { ...other }, takerSignature: sig, makerAmount: 3n, takerAmount: 4n },
      { maker: o, makerSignature: `0x${"1c".repeat(65)}`, taker: other, takerSignature: sig, makerAmount: 5n, takerAmount: 6n },
    ]);
    expect(c.orders).toEqual([o, other, o]);
    expect(c.fills.map((f) => [f.maker, f.taker])).toEqual([[0n, 1n], [0n, 1n], [2n, 1n]]);
  });

  it("rejects malformed signature bytes instead of encoding garbage", () => {
    const o = { user: "0x" + "11".repeat(20), expiration: 1n, feeBps: 0n, recipient: "0x" + "00".repeat(20), fromToken: "0x" + "22".repeat(20), toToken: "0x" + "33".repeat(20), fromAmount: 1n, toAmount: 1n, initialDepositAmount: 0n, uuid: 1n } as OrderMessage;
    expect(() => encodeMatchBatch([{ maker: o, makerSignature: "0x123", taker: o, takerSignature: "0x", makerAmount: 1n, takerAmount: 1n }], false)).toThrow(/bad bytes/);
    expect(() => encodeMatchBatch([{ maker: o, makerSignature: "0xzz", taker: o, takerSignature: "0x", makerAmount: 1n, takerAmount: 1n }], false)).toThrow(/bad bytes/);
  });

  it("refuses a negative amount instead of encoding garbage", () => {
    const o = { user: "0x" + "11".repeat(20), expiration: 1n, feeBps: 0n, recipient: "0x" + "00".repeat(20), fromToken: "0x" + "22".repeat(20), toToken: "0x" + "33".repeat(20), fromAmount: 1n, toAmount: 1n, initialDepositAmount: 0n, uuid: 1n } as OrderMessage;
    expect(() => encodeMatchBatch([{ maker: o, makerSignature: "0x", taker: o, takerSignature: "0x", makerAmount: -1n, takerAmount: 1n }], false)).toThrow("ABI: negative integer");
  });

  it("signEip1559 produces viem's raw transaction and hash", async () => {
    const account = privateKeyToAccount(EXECUTOR_KEY);
    const key = Buffer.from(EXECUTOR_KEY.slice(2), "hex");
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          nonce: fc.integer({ min: 0, max: 1_000_000 }),
          gas: fc.bigInt({ min: 21_000n, max: 30_000_000n }),
          prio: fc.bigInt({ min: 0n, max: 10n ** 11n }),
          extra: fc.bigInt({ min: 0n, max: 10n ** 12n }),
          data: fc.uint8Array({ minLength: 0, maxLength: 300 }),
          chainId: fc.constantFrom(1, 31337, 11155111),
          to: addr,
        }),
        async (t) => {
          const ours = signEip1559(
            { chainId: t.chainId, nonce: t.nonce, to: t.to, data: t.data, gas: t.gas, maxFeePerGas: t.prio + t.extra, maxPriorityFeePerGas: t.prio, value: 0n },
            key,
          );
          const theirs = await account.signTransaction({
            type: "eip1559",
            chainId: t.chainId,
            nonce: t.nonce,
            to: t.to,
            data: `0x${Buffer.from(t.data).toString("hex")}`,
            gas: t.gas,
            maxFeePerGas: t.prio + t.extra,
            maxPriorityFeePerGas: t.prio,
            value: 0n,
          });
          expect(ours.raw).toBe(theirs);
          expect(ours.hash).toBe(keccak256(theirs));
        },
      ),
      { numRuns: 40 },
    );
    // And it is a transaction from the executor.
    const one = signEip1559({ chainId: 31337, nonce: 7, to: account.address, data: new Uint8Array(0), gas: 21_000n, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n, value: 0n }, key);
    expect(parseTransaction(one.raw).nonce).toBe(7);
    expect(await recoverTransactionAddress({ serializedTransaction: one.raw as `0x02${string}` })).toBe(account.address);
  });

  // Random fields rarely hit these: a one-byte value of exactly 0x80 (RLP writes it as a
  // string, 0x81 0x80) and r or s with a leading zero byte (RLP drops it: 1 in 128 signatures).
  it("signEip1559 matches viem at the encoding's edges: a 0x80 byte, r and s with leading zero bytes", async () => {
    const account = privateKeyToAccount(EXECUTOR_KEY);
    const key = Buffer.from(EXECUTOR_KEY.slice(2), "hex");
    const to = `0x${"00".repeat(19)}aa` as Address;
    // Nonces found by search for this transaction: 215 signs with r < 2^248, 7 with s < 2^248.
    for (const nonce of [128, 215, 7]) {
      const tx = { chainId: 31337, nonce, to, gas: 21_000n, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n, value: 0n };
      const ours = signEip1559({ ...tx, data: new Uint8Array(0) }, key);
      const theirs = await account.signTransaction({ type: "eip1559", ...tx, data: "0x" });
      expect(ours.raw, `nonce ${nonce}`).toBe(theirs);
      expect(ours.hash).toBe(keccak256(theirs));
    }
    // The cases are what they claim to be.
    const sigOf = async (nonce: number) => parseTransaction(await account.signTransaction({ type: "eip1559", chainId: 31337, nonce, to, gas: 21_000n, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n, value: 0n, data: "0x" }));
    expect(BigInt((await sigOf(215)).r!) < 2n ** 248n).toBe(true);
    expect(BigInt((await sigOf(7)).s!) < 2n ** 248n).toBe(true);
  });
});
