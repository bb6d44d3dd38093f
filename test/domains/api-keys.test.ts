import { describe, expect, it } from "vitest";
import {
  API_KEY_PREFIX,
  ApiKeyStore,
  normalizeSignature,
  type ManageAuth,
} from "../../sim/core/api-keys.ts";
import { VirtualClock } from "../../sim/core/clock.ts";
import { ExchangeError } from "../../sim/core/errors.ts";
import { Rng } from "../../sim/core/rng.ts";

const ALICE = "0xAaAaaAaaaAaaAaaAaaAAAAAAaaaaAaAaaAaAaAAa";
const BOB = "0xBbBbBbbbBbBBBBbbBBbbbbbbbBBbBbBBbBbbBbbB";
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

function caught(f: () => unknown): ExchangeError {
  try {
    f();
  } catch (e) {
    if (e instanceof ExchangeError) return e;
    throw e;
  }
  throw new Error("expected an ExchangeError");
}

function setup() {
  const clock = new VirtualClock();
  const store = new ApiKeyStore(clock, new Rng(7));
  let n = 0;
  // A fresh, distinct 65-byte signature per call (the store only tracks bytes).
  const auth = (owner: string, action: string, over: Partial<ManageAuth> = {}): ManageAuth => ({
    owner,
    action,
    timestamp: clock.nowSec(),
    signature: "0x" + (++n).toString(16).padStart(64, "0") + "01".padStart(64, "0") + "1b",
    ...over,
  });
  return { clock, store, auth };
}

describe("create / authenticate / verify", () => {
  it("creates a prefixed key with a secret shown once, and authenticates with it", () => {
    const { store, auth } = setup();
    const c = store.create(auth(ALICE, "create"), "bot");
    expect(c.api_key.startsWith(API_KEY_PREFIX)).toBe(true);
    expect(c.api_secret).toMatch(/^[0-9a-f]{64}$/);
    expect(c.label).toBe("bot");
    expect(c.owner_address).toBe(ALICE.toLowerCase());
    expect(c.created_at).toBe("2026-01-01T00:00:00.000Z");
    expect(store.authenticate(`Bearer ${c.api_key}:${c.api_secret}`)).toBe(ALICE.toLowerCase());
    expect(store.authenticate(`bearer ${c.api_key}:${c.api_secret}`)).toBe(ALICE.toLowerCase());
    expect(store.verify(c.api_key, c.api_secret)).toEqual({ valid: true, owner_address: ALICE.toLowerCase() });
    // the secret is never stored in clear
    expect(JSON.stringify(store.snapshot())).not.toContain(c.api_secret);
  });

  it("is deterministic under the same seed", () => {
    const a = setup();
    const b = setup();
    expect(a.store.create(a.auth(ALICE, "create"))).toEqual(b.store.create(b.auth(ALICE, "create")));
  });

  it.each([
    [undefined, "Missing API key"],
    ["", "Missing API key"],
    ["Basic abc", "Invalid API key"],
    ["Bearer nocolon", "Invalid API key"],
    ["Bearer fkx_unknown:secret", "Invalid API key"],
  ])("401 for authorization %j", (header, detail) => {
    const { store } = setup();
    const e = caught(() => store.authenticate(header));
    expect(e.status).toBe(401);
    expect(e.code).toBe("UNAUTHORIZED");
    expect(e.detail).toBe(detail);
  });

  it("401 for a wrong secret, in authenticate and verify", () => {
    const { store, auth } = setup();
    const c = store.create(auth(ALICE, "create"));
    expect(caught(() => store.authenticate(`Bearer ${c.api_key}:${c.api_secret.replace(/.$/, "x")}`)).status).toBe(401);
    const e = caught(() => store.verify(c.api_key, "nope"));
    expect(e.status).toBe(401);
    expect(e.code).toBe("UNAUTHORIZED");
    expect(caught(() => store.verify(undefined, undefined)).status).toBe(401);
  });

  it("verify changes no state; authenticate records last use", () => {
    const { store, auth, clock } = setup();
    const c = store.create(auth(ALICE, "create"));
    const before = store.snapshot();
    store.verify(c.api_key, c.api_secret);
    expect(store.snapshot()).toEqual(before);
    clock.advanceSec(10);
    store.authenticate(`Bearer ${c.api_key}:${c.api_secret}`);
    const list = store.list(auth(ALICE, "list"));
    expect(list.api_keys[0]!.last_used_at).toBe("2026-01-01T00:00:10.000Z");
  });

  it("rejects a non-string or overlong label with 400", () => {
    const { store, auth } = setup();
    expect(caught(() => store.create(auth(ALICE, "create"), 5)).status).toBe(400);
    expect(caught(() => store.create(auth(ALICE, "create"), "x".repeat(129))).code).toBe("VALIDATION");
    // 128 characters is the longest label, and it is kept whole.
    expect(store.create(auth(ALICE, "create"), "x".repeat(128)).label).toBe("x".repeat(128));
  });
});

describe("management rules", () => {
  it("allows 10 active keys per wallet; the 11th is 400 LIMIT_EXCEEDED and does not consume the signature", () => {
    const { store, auth } = setup();
    const keys = Array.from({ length: 10 }, () => store.create(auth(ALICE, "create")).api_key);
    const eleventh = auth(ALICE, "create");
    const e = caught(() => store.create(eleventh));
    expect(e.status).toBe(400);
    expect(e.code).toBe("LIMIT_EXCEEDED");
    // another wallet is unaffected
    expect(() => store.create(auth(BOB, "create"))).not.toThrow();
    // revoking one frees a slot and the same signature now works
    store.revoke(auth(ALICE, `revoke_${keys[0]}`), keys[0]);
    expect(() => store.create(eleventh)).not.toThrow();
    expect(store.activeCount(ALICE)).toBe(10);
  });

  it("a reused management signature is 409 SIGNATURE_REPLAYED, in any encoding", () => {
    const { store, auth } = setup();
    const a = auth(ALICE, "list");
    store.list(a);
    const e = caught(() => store.list(a));
    expect(e.status).toBe(409);
    expect(e.code).toBe("SIGNATURE_REPLAYED");
    expect(caught(() => store.list({ ...a, signature: a.signature.toUpperCase().replace("0X", "0x") })).status).toBe(409);
    // a signature used for one action cannot be reused for another
    expect(caught(() => store.create({ ...a, action: "create" })).status).toBe(409);
  });

  it.each([
    [-301, true],
    [-300, false],
    [300, false],
    [301, true],
  ])("timestamp skew %i s → rejected: %s", (skew, rejected) => {
    const { store, auth, clock } = setup();
    const a = auth(ALICE, "create", { timestamp: clock.nowSec() + skew });
    if (rejected) {
      const e = caught(() => store.create(a));
      expect(e.status).toBe(400);
      expect(e.code).toBe("SIGNATURE_INVALID");
    } else {
      expect(() => store.create(a)).not.toThrow();
    }
  });

  it("accepts a timestamp as a decimal string; rejects junk and milliseconds", () => {
    const { store, auth, clock } = setup();
    expect(() => store.create(auth(ALICE, "create", { timestamp: String(clock.nowSec()) }))).not.toThrow();
    for (const timestamp of ["abc", 1.5, null, clock.nowMs()]) {
      expect(caught(() => store.create(auth(ALICE, "create", { timestamp }))).code).toBe("SIGNATURE_INVALID");
    }
  });

  it("the signed action must fit the operation (400)", () => {
    const { store, auth } = setup();
    const c = store.create(auth(ALICE, "create"));
    for (const [call, action] of [
      [() => store.create(auth(ALICE, "list")), "list"],
      [() => store.list(auth(ALICE, "create")), "create"],
      [() => store.revoke(auth(ALICE, "revoke_all"), c.api_key), "revoke_all"],
      [() => store.revoke(auth(ALICE, "revoke_fkx_other"), c.api_key), "revoke_fkx_other"],
      [() => store.revokeAll(auth(ALICE, "revoke_All")), "revoke_All"],
    ] as const) {
      const e = caught(call);
      expect(e.status, action).toBe(400);
      expect(e.code).toBe("SIGNATURE_INVALID");
    }
  });

  it("rejects a malformed owner with 400", () => {
    const { store, auth } = setup();
    expect(caught(() => store.create(auth("0x123", "create"))).code).toBe("VALIDATION");
  });
});

describe("list / revoke / revoke-all / self-revoke", () => {
  it("lists only the owner's active keys, without secrets", () => {
    const { store, auth, clock } = setup();
    const k1 = store.create(auth(ALICE, "create"), "one");
    clock.advanceSec(1);
    const k2 = store.create(auth(ALICE, "create"), "two");
    store.create(auth(BOB, "create"), "bob");
    store.revoke(auth(ALICE, `revoke_${k1.api_key}`), k1.api_key);
    const l = store.list(auth(ALICE, "list"));
    expect(l).toEqual({
      owner_address: ALICE.toLowerCase(),
      api_keys: [{ api_key: k2.api_key, label: "two", created_at: "2026-01-01T00:00:01.000Z", last_used_at: null }],
      count: 1,
    });
    expect(JSON.stringify(l)).not.toContain(k2.api_secret);
  });

  it("revoke makes the key unusable; unknown, foreign or repeated revokes are 404", () => {
    const { store, auth } = setup();
    const k = store.create(auth(ALICE, "create"));
    expect(store.revoke(auth(ALICE, `revoke_${k.api_key}`), k.api_key)).toEqual({ status: "ok", api_key: k.api_key });
    expect(caught(() => store.authenticate(`Bearer ${k.api_key}:${k.api_secret}`)).status).toBe(401);
    expect(caught(() => store.verify(k.api_key, k.api_secret)).status).toBe(401);
    expect(store.ownerOf(k.api_key)).toBeUndefined();
    const again = caught(() => store.revoke(auth(ALICE, `revoke_${k.api_key}`), k.api_key));
    expect(again.status).toBe(404);
    expect(again.code).toBe("NOT_FOUND");
    const kb = store.create(auth(BOB, "create"));
    expect(caught(() => store.revoke(auth(ALICE, `revoke_${kb.api_key}`), kb.api_key)).status).toBe(404);
    expect(caught(() => store.revoke(auth(ALICE, "revoke_fkx_x"), "fkx_x")).status).toBe(404);
    expect(caught(() => store.revoke(auth(ALICE, "revoke_"), "")).status).toBe(400);
    expect(store.ownerOf(kb.api_key)).toBe(BOB.toLowerCase());
  });

  it("revoke-all returns the revoked keys and count; empty when none", () => {
    const { store, auth } = setup();
    expect(store.revokeAll(auth(ALICE, "revoke_all"))).toEqual({ status: "ok", revoked_api_keys: [], count: 0 });
    const a = store.create(auth(ALICE, "create")).api_key;
    const b = store.create(auth(ALICE, "create")).api_key;
    const bob = store.create(auth(BOB, "create"));
    expect(store.revokeAll(auth(ALICE, "revoke_all"))).toEqual({ status: "ok", revoked_api_keys: [a, b], count: 2 });
    expect(store.activeCount(ALICE)).toBe(0);
    expect(store.authenticate(`Bearer ${bob.api_key}:${bob.api_secret}`)).toBe(BOB.toLowerCase());
    const used = auth(ALICE, "revoke_all");
    store.revokeAll(used);
    const e = caught(() => store.revokeAll(used));
    expect(e.status).toBe(409);
    expect(e.code).toBe("SIGNATURE_REPLAYED");
  });

  it("self-revoke needs the bearer key and the same api_key in the body", () => {
    const { store, auth } = setup();
    const k = store.create(auth(ALICE, "create"));
    const other = store.create(auth(ALICE, "create"));
    const header = `Bearer ${k.api_key}:${k.api_secret}`;
    const e = caught(() => store.selfRevoke(header, other.api_key));
    expect(e.status).toBe(403);
    expect(e.code).toBe("FORBIDDEN");
    expect(caught(() => store.selfRevoke("Bearer x:y", k.api_key)).status).toBe(401);
    expect(store.selfRevoke(header, k.api_key)).toEqual({ status: "ok", api_key: k.api_key });
    expect(caught(() => store.authenticate(header)).status).toBe(401);
    expect(store.ownerOf(other.api_key)).toBe(ALICE.toLowerCase());
  });
});

describe("snapshot / restore", () => {
  it("restores keys and the used-signature set", () => {
    const { store, auth } = setup();
    const snap = store.snapshot();
    const a = auth(ALICE, "create");
    const k = store.create(a);
    store.restore(snap);
    expect(caught(() => store.authenticate(`Bearer ${k.api_key}:${k.api_secret}`)).status).toBe(401);
    expect(() => store.create(a)).not.toThrow(); // signature not used in the restored state
    const snap2 = store.snapshot();
    store.revokeAll(auth(ALICE, "revoke_all"));
    store.restore(snap2);
    expect(store.activeCount(ALICE)).toBe(1);
  });

  it("after a restore each wallet's keys are its own again: the active cap, the list and revoke-all count what the snapshot held", () => {
    const { store, auth } = setup();
    for (let i = 0; i < 9; i++) store.create(auth(ALICE, "create"), `a${i}`);
    store.create(auth(BOB, "create"), "b0");
    const snap = store.snapshot();
    store.create(auth(ALICE, "create"), "a9");
    expect(caught(() => store.create(auth(ALICE, "create"))).code).toBe("LIMIT_EXCEEDED");
    store.restore(snap);
    expect(store.list(auth(ALICE, "list")).api_keys.map((k) => k.label)).toEqual(["a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8"]);
    store.create(auth(ALICE, "create"), "again");
    expect(caught(() => store.create(auth(ALICE, "create"))).code).toBe("LIMIT_EXCEEDED");
    expect(store.revokeAll(auth(BOB, "revoke_all")).count).toBe(1);
    expect(store.activeCount(ALICE)).toBe(10);
  });

  it("remembers a used signature as long as its timestamp is accepted: a replay at exactly +300 s, after another call pruned, is still 409", () => {
    const { store, auth, clock } = setup();
    const a = auth(ALICE, "list");
    store.list(a);
    clock.advanceSec(300);
    store.list(auth(ALICE, "list")); // prunes what left the window
    expect(caught(() => store.list(a)).status).toBe(409);
  });

  it("forgets used signatures once their timestamp left the window", () => {
    const { store, auth, clock } = setup();
    store.list(auth(ALICE, "list"));
    clock.advanceSec(301);
    store.list(auth(ALICE, "list"));
    expect(store.snapshot().usedSignatures.length).toBe(1);
  });
});

describe("normalizeSignature", () => {
  const r = "11".repeat(32);
  const lowS = 5n;
  const hexS = (s: bigint) => s.toString(16).padStart(64, "0");
  it("maps v 0/1 to 27/28, compact EIP-2098 to 65 bytes and high-s to low-s", () => {
    const canonical = normalizeSignature(`0x${r}${hexS(lowS)}1c`);
    expect(normalizeSignature(`0x${r}${hexS(lowS)}01`)).toBe(canonical);
    expect(normalizeSignature(`0x${r}${hexS(lowS | (1n << 255n))}`)).toBe(canonical);
    expect(normalizeSignature(`0x${r}${hexS(N - lowS)}1b`)).toBe(canonical);
    expect(normalizeSignature(`0x${r}${hexS(lowS)}1b`)).not.toBe(canonical);
    expect(normalizeSignature("0xABCDEF")).toBe("0xabcdef");
  });
});
