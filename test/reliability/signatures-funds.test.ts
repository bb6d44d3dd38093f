// Signature attacks on POST /withdraw and /withdraw/build (the WithdrawIntent
// user_signature), and the 403 owner-mismatch table of the key-authenticated funds
// routes, on one Anvil chain for the file.

import request from "supertest";
import { beforeEach, describe, expect, it } from "vitest";
import type { Address, Hex } from "../../sim/core/typed-data.ts";
import { buildApp, signWithdrawIntent, useFundsChain, type FundsApp, type FundsChain, type WireIntent } from "../funds/harness.ts";
import { MUTATIONS, compact, otherDomains, withV } from "./sig-mutations.ts";
import { stateOf } from "./state.ts";

const V1 = "/api/v1";
let c: FundsChain;
let env: FundsApp;

useFundsChain((chain) => (c = chain));
beforeEach(async () => {
  env = await buildApp(c);
});

const alice = () => c.traders[0]!;
const ALICE = () => alice().address.toLowerCase() as Address;
const BOB = () => c.traders[1]!.address.toLowerCase() as Address;

function intent(): WireIntent {
  return { user: alice().address, tokens: [c.tokens["EURC"]!], amounts: ["1000000"], recipient: ALICE(), deadline: String(env.clock.nowSec() + 3600), uuid: "77" };
}

function post(path: string, body: unknown, bearer?: string) {
  const r = request(env.app).post(`${V1}${path}`);
  if (bearer) r.set("Authorization", bearer);
  return r.send(body as object);
}

/** The signed-with-a-foreign-domain variant of signWithdrawIntent. */
function signUnder(domain: FundsChain["domain"], i: WireIntent): Promise<Hex> {
  return signWithdrawIntent({ ...c, domain }, alice(), i);
}

describe.each(["/withdraw", "/withdraw/build"])("POST %s user_signature", (path) => {
  const bodyOf = (i: WireIntent, sig: Hex) =>
    path === "/withdraw" ? { intent: i, user_signature: sig } : { intent: i, user_signature: sig, executor: env.coSigner.executorAddress, executor_signature: `0x${"11".repeat(65)}` };

  it.each(MUTATIONS)("refuses %s (400, no state change, no block)", async (_label, mutate) => {
    const i = intent();
    const sig = await signWithdrawIntent(c, alice(), i);
    const before = stateOf(env);
    const block = await c.pub.getBlockNumber({ cacheTime: 0 });
    const res = await post(path, bodyOf(i, mutate(sig)));
    expect([400, 422]).toContain(res.status);
    if (res.status === 400) expect(res.body).toEqual({ detail: "Invalid signature: user_signature must sign the WithdrawIntent by intent.user" });
    expect(stateOf(env)).toBe(before);
    expect(await c.pub.getBlockNumber({ cacheTime: 0 })).toBe(block);
  });

  it("refuses a user_signature over a foreign domain (chain id, contract, name, version)", async () => {
    for (const [label, domain] of otherDomains(c.domain)) {
      const i = intent();
      const res = await post(path, bodyOf(i, await signUnder(domain as FundsChain["domain"], i)));
      expect(res.status, label).toBe(400);
    }
  });

  it("refuses v 0/1 (400, no state change): executeInstantWithdrawDualSig's ecrecover would refuse it", async () => {
    const i = intent();
    const sig = await signWithdrawIntent(c, alice(), i);
    const before = stateOf(env);
    const res = await post(path, bodyOf(i, withV(sig, Number.parseInt(sig.slice(130), 16) - 27)));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: "Invalid signature: user_signature must sign the WithdrawIntent by intent.user" });
    expect(stateOf(env)).toBe(before);
  });

  it("gets past the user signature check with the 65-byte (v 27/28) and 64-byte compact forms", async () => {
    const i = intent();
    const sig = await signWithdrawIntent(c, alice(), i);
    for (const form of [sig, compact(sig)]) {
      const res = await post(path, bodyOf(i, form));
      // /withdraw: 200 (success false: nothing deposited); /withdraw/build: the next check, the executor co-signature.
      if (path === "/withdraw") expect(res.status, JSON.stringify(res.body)).toBe(200);
      else expect(res.body).toEqual({ detail: "Invalid signature: executor_signature is not the executor's co-signature of this intent" });
    }
  });
});

describe("403 when a key-authenticated funds request names another wallet", () => {
  const cases: readonly [string, () => request.Test][] = [
    ["GET /balances", () => request(env.app).get(`${V1}/balances?owner_address=${BOB()}`)],
    ["GET /permit/metadata", () => request(env.app).get(`${V1}/permit/metadata?token=${c.tokens["EURC"]}&owner=${BOB()}&spender=${c.vault}`)],
    ["POST /approve", () => request(env.app).post(`${V1}/approve`).send({ token: c.tokens["EURC"], owner: BOB(), spender: c.vault, amount: "1" })],
    ["POST /deposit", () => request(env.app).post(`${V1}/deposit`).send({ token: c.tokens["EURC"], owner: BOB(), amount: "1" })],
    ["POST /transfer", () => request(env.app).post(`${V1}/transfer`).send({ token: c.tokens["EURC"], to: ALICE(), amount: "1", from_address: BOB() })],
    ["POST /withdraw (intent.user)", () => request(env.app).post(`${V1}/withdraw`).send({ intent: { ...intent(), user: BOB() }, user_signature: `0x${"11".repeat(65)}` })],
    ["POST /withdraw/build (intent.user)", () => request(env.app).post(`${V1}/withdraw/build`).send({ intent: { ...intent(), user: BOB() }, user_signature: `0x${"11".repeat(65)}`, executor: env.coSigner.executorAddress, executor_signature: `0x${"11".repeat(65)}` })],
  ];
  it.each(cases)("%s", async (_name, make) => {
    const before = stateOf(env);
    const res = await make().set("Authorization", env.bearer[0]!);
    expect(res.status, JSON.stringify(res.body)).toBe(403);
    expect(typeof res.body.detail).toBe("string");
    expect(stateOf(env)).toBe(before);
    // The same request with the named wallet's own key is not a 403.
    expect((await make().set("Authorization", env.bearer[1]!)).status).not.toBe(403);
  });
});
