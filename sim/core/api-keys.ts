// Read-only API keys: creation and revocation by ManageApiKey signature, bearer
// authentication, verification. Only a sha256 of each secret is kept; the secret
// is shown once, at creation.
//
// Signature VERIFICATION is the HTTP layer's job (it may need the chain for
// EIP-1271 wallets). This store receives the already-verified owner plus the
// signed action, timestamp and signature bytes, and enforces everything else:
// the action fits the operation, the timestamp is within 5 minutes of the clock
// (either direction), each signature is used once, at most 10 active keys.
//
// Statuses the spec leaves open, and why:
// - 11th active key: 400 LIMIT_EXCEEDED. The spec's 409 list is specific
//   (replayed signature, self-match, QUOTE_STALE); a documented per-wallet cap
//   is a request the server will not fulfil, i.e. a bad request. The signature is
//   not consumed, so the client can revoke a key and retry.
// - action not matching the operation, or timestamp outside the window:
//   400 SIGNATURE_INVALID (the signed authorisation does not authorise this call).
// - revoke of an unknown, foreign or already revoked key: 404 NOT_FOUND (one
//   answer for all three, so keys of other wallets cannot be probed).
// - self-revoke with a body api_key other than the bearer key: 403 FORBIDDEN.
// - create answers 200 (sim/http/routes/api-keys.ts): the spec reserves 201 for POST /orders.
// A management signature is recorded as used only when its call succeeds.

import { createHash, timingSafeEqual } from "node:crypto";
import { isoOf, type Clock } from "./clock.ts";
import { ExchangeError } from "./errors.ts";
import type { Rng } from "./rng.ts";
import type { Address } from "./typed-data.ts";

export const API_KEY_PREFIX = "fkx_";
export const MAX_ACTIVE_KEYS_PER_WALLET = 10;
export const MANAGE_TIMESTAMP_SKEW_SEC = 300;
export const MAX_LABEL_LENGTH = 128;

/** secp256k1 group order: a signature (r, s) and (r, n - s) are the same authorisation. */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** What the HTTP layer hands over after it verified the ManageApiKey signature. */
export interface ManageAuth {
  owner: string; // the verified signer (any case)
  action: unknown; // the signed action string
  timestamp: unknown; // the signed timestamp (Unix seconds; number or decimal string)
  signature: string; // the signature bytes as sent (hex)
}

interface ApiKeyRecord {
  apiKey: string;
  owner: Address; // lowercase
  label: string;
  secretHash: string; // sha256 hex of the secret
  createdAtMs: number;
  lastUsedAtMs: number | null;
  revokedAtMs: number | null;
}

export interface ApiKeyStoreState {
  keys: ApiKeyRecord[];
  /** normalized signature → signed timestamp (seconds), for replay protection. */
  usedSignatures: [string, number][];
}

export interface ApiKeyListEntry {
  api_key: string;
  label: string;
  created_at: string;
  last_used_at: string | null;
}

export interface ApiKeyStoreOptions {
  maxActivePerWallet?: number;
  timestampSkewSec?: number;
}

export class ApiKeyStore {
  private keys = new Map<string, ApiKeyRecord>();
  /** Every key of an owner, revoked ones too (the same records as `keys`): a create reads its owner's, not every wallet's. */
  private byOwner = new Map<Address, ApiKeyRecord[]>();
  private usedSignatures = new Map<string, number>();
  /** The clock second of the last prune: signatures leave the window only as the clock moves. */
  private prunedAtSec: number | null = null;
  private readonly maxActive: number;
  private readonly skewSec: number;

  constructor(
    private readonly clock: Clock,
    private readonly rng: Rng,
    opts: ApiKeyStoreOptions = {},
  ) {
    this.maxActive = opts.maxActivePerWallet ?? MAX_ACTIVE_KEYS_PER_WALLET;
    this.skewSec = opts.timestampSkewSec ?? MANAGE_TIMESTAMP_SKEW_SEC;
  }

  // ---- management (EIP-712 ManageApiKey) ----

  /** POST /api-keys. Returns the only copy of the secret. */
  create(auth: ManageAuth, label: unknown = ""): { api_key: string; api_secret: string; label: string; owner_address: Address; created_at: string } {
    if (typeof label !== "string" || label.length > MAX_LABEL_LENGTH) {
      throw new ExchangeError("VALIDATION", 400, `label must be a string of at most ${MAX_LABEL_LENGTH} characters`);
    }
    const owner = this.authorize(auth, "create");
    if (this.activeKeysOf(owner).length >= this.maxActive) {
      throw new ExchangeError("LIMIT_EXCEEDED", 400, `a wallet can hold at most ${this.maxActive} active API keys; revoke one first`);
    }
    const apiKey = this.freshKeyId();
    const secret = this.rng.hex(32);
    const now = this.clock.nowMs();
    const rec: ApiKeyRecord = {
      apiKey,
      owner,
      label,
      secretHash: sha256Hex(secret),
      createdAtMs: now,
      lastUsedAtMs: null,
      revokedAtMs: null,
    };
    this.keys.set(apiKey, rec);
    this.ownerKeys(owner).push(rec);
    this.consume(auth);
    return { api_key: apiKey, api_secret: secret, label, owner_address: owner, created_at: isoOf(now) };
  }

  /** GET/POST /api-keys(/list): active keys, never secrets, oldest first. */
  list(auth: ManageAuth): { owner_address: Address; api_keys: ApiKeyListEntry[]; count: number } {
    const owner = this.authorize(auth, "list");
    const api_keys = this.activeKeysOf(owner).map(entryOf);
    this.consume(auth);
    return { owner_address: owner, api_keys, count: api_keys.length };
  }

  /** DELETE/POST /api-keys(/revoke): the signed action must be `revoke_<api_key>`. */
  revoke(auth: ManageAuth, apiKey: unknown): { status: "ok"; api_key: string } {
    if (typeof apiKey !== "string" || apiKey.length === 0) throw new ExchangeError("VALIDATION", 400, "api_key is required");
    const owner = this.authorize(auth, `revoke_${apiKey}`);
    const rec = this.keys.get(apiKey);
    if (!rec || rec.owner !== owner || rec.revokedAtMs !== null) throw new ExchangeError("NOT_FOUND", 404, "API key not found");
    rec.revokedAtMs = this.clock.nowMs();
    this.consume(auth);
    return { status: "ok", api_key: apiKey };
  }

  /** POST /api-keys/revoke-all: empty list and count 0 when nothing is active. */
  revokeAll(auth: ManageAuth): { status: "ok"; revoked_api_keys: string[]; count: number } {
    const owner = this.authorize(auth, "revoke_all");
    const now = this.clock.nowMs();
    const revoked = this.activeKeysOf(owner).map((r) => {
      r.revokedAtMs = now;
      return r.apiKey;
    });
    this.consume(auth);
    return { status: "ok", revoked_api_keys: revoked, count: revoked.length };
  }

  // ---- key-authenticated ----

  /** POST /api-keys/self-revoke: authenticated by the key itself; body api_key must be that key. */
  selfRevoke(authorization: unknown, apiKey: unknown): { status: "ok"; api_key: string } {
    const { apiKey: bearerKey } = this.authenticateKey(authorization);
    if (apiKey !== bearerKey) throw new ExchangeError("FORBIDDEN", 403, "api_key must be the key used to authenticate");
    const rec = this.keys.get(bearerKey)!;
    rec.revokedAtMs = this.clock.nowMs();
    return { status: "ok", api_key: bearerKey };
  }

  /**
   * Authorization header → owner (lowercase). Missing, malformed, unknown,
   * revoked or wrong-secret credentials are all 401. Records last use.
   */
  authenticate(authorization: unknown): Address {
    return this.authenticateKey(authorization).owner;
  }

  /** POST /api-keys/verify: no state change (not even last use), 401 on a bad pair. */
  verify(apiKey: unknown, apiSecret: unknown): { valid: true; owner_address: Address } {
    const rec = this.match(apiKey, apiSecret);
    if (!rec) throw new ExchangeError("UNAUTHORIZED", 401, "Invalid API key or secret");
    return { valid: true, owner_address: rec.owner };
  }

  /** Owner of an active key (for key-authenticated routes that already resolved the key). */
  ownerOf(apiKey: string): Address | undefined {
    const rec = this.keys.get(apiKey);
    return rec && rec.revokedAtMs === null ? rec.owner : undefined;
  }

  activeCount(owner: string): number {
    return this.activeKeysOf(owner.toLowerCase() as Address).length;
  }

  // ---- snapshot ----

  snapshot(): ApiKeyStoreState {
    return {
      keys: [...this.keys.values()].map((r) => ({ ...r })),
      usedSignatures: [...this.usedSignatures.entries()],
    };
  }

  restore(state: ApiKeyStoreState): void {
    this.keys = new Map(state.keys.map((r) => [r.apiKey, { ...r }]));
    this.byOwner = new Map();
    for (const r of this.keys.values()) this.ownerKeys(r.owner).push(r);
    this.usedSignatures = new Map(state.usedSignatures);
    this.prunedAtSec = null;
  }

  // ---- internals ----

  private authenticateKey(authorization: unknown): ApiKeyRecord {
    if (typeof authorization !== "string" || authorization.length === 0) {
      throw new ExchangeError("UNAUTHORIZED", 401, "Missing API key");
    }
    const m = /^Bearer\s+([^:\s]+):(\S+)$/i.exec(authorization.trim());
    if (!m) throw new ExchangeError("UNAUTHORIZED", 401, "Invalid API key");
    const rec = this.match(m[1], m[2]);
    if (!rec) throw new ExchangeError("UNAUTHORIZED", 401, "Invalid API key");
    rec.lastUsedAtMs = this.clock.nowMs();
    return rec;
  }

  private match(apiKey: unknown, apiSecret: unknown): ApiKeyRecord | undefined {
    if (typeof apiKey !== "string" || typeof apiSecret !== "string") return undefined;
    const rec = this.keys.get(apiKey);
    // Hash the presented secret even for unknown keys so both paths cost the same.
    const presented = Buffer.from(sha256Hex(apiSecret), "hex");
    const stored = Buffer.from(rec?.secretHash ?? sha256Hex(""), "hex");
    const same = timingSafeEqual(presented, stored);
    if (!rec || !same || rec.revokedAtMs !== null) return undefined;
    return rec;
  }

  /** Action, timestamp window and replay checks; returns the owner. Consumes nothing. */
  private authorize(auth: ManageAuth, expectedAction: string): Address {
    if (typeof auth.owner !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(auth.owner)) {
      throw new ExchangeError("VALIDATION", 400, "owner_address must be a 0x-prefixed 20-byte hex address");
    }
    if (auth.action !== expectedAction) {
      throw new ExchangeError("SIGNATURE_INVALID", 400, `action must be "${expectedAction}" for this operation`);
    }
    const ts = parseTimestamp(auth.timestamp);
    const now = this.clock.nowSec();
    if (ts === undefined || Math.abs(ts - now) > this.skewSec) {
      throw new ExchangeError(
        "SIGNATURE_INVALID",
        400,
        `timestamp must be Unix seconds within ${this.skewSec} seconds of server time (${now})`,
      );
    }
    if (this.usedSignatures.has(normalizeSignature(auth.signature))) {
      throw new ExchangeError("SIGNATURE_REPLAYED", 409, "signature already used; sign again with a fresh timestamp");
    }
    return auth.owner.toLowerCase() as Address;
  }

  private consume(auth: ManageAuth): void {
    this.pruneSignatures();
    this.usedSignatures.set(normalizeSignature(auth.signature), parseTimestamp(auth.timestamp)!);
  }

  /** A signature whose timestamp left the window can never pass again; forget it (once per clock second: a frozen clock expires none). */
  private pruneSignatures(): void {
    const now = this.clock.nowSec();
    if (now === this.prunedAtSec) return;
    this.prunedAtSec = now;
    const oldest = now - this.skewSec;
    for (const [sig, ts] of this.usedSignatures) if (ts < oldest) this.usedSignatures.delete(sig);
  }

  private ownerKeys(owner: Address): ApiKeyRecord[] {
    let list = this.byOwner.get(owner);
    if (list === undefined) this.byOwner.set(owner, (list = []));
    return list;
  }

  private activeKeysOf(owner: Address): ApiKeyRecord[] {
    return (this.byOwner.get(owner) ?? []).filter((r) => r.revokedAtMs === null);
  }

  private freshKeyId(): string {
    for (;;) {
      const id = API_KEY_PREFIX + this.rng.hex(16);
      if (!this.keys.has(id)) return id;
    }
  }
}

function entryOf(r: ApiKeyRecord): ApiKeyListEntry {
  return {
    api_key: r.apiKey,
    label: r.label,
    created_at: isoOf(r.createdAtMs),
    last_used_at: r.lastUsedAtMs === null ? null : isoOf(r.lastUsedAtMs),
  };
}

function sha256Hex(s: string): string {
  return createHash("sha256").update(s, "utf8").digest("hex");
}

function parseTimestamp(t: unknown): number | undefined {
  if (typeof t === "number" && Number.isSafeInteger(t) && t >= 0) return t;
  if (typeof t === "string" && /^[0-9]{1,15}$/.test(t)) return Number(t);
  return undefined;
}

/**
 * One spelling per ECDSA authorisation, so a replay cannot slip through by
 * re-encoding: lowercase hex; 64-byte EIP-2098 compact form expanded; v as
 * 27/28; high-s flipped to low-s (with v flipped). Anything that is not a
 * 64/65-byte ECDSA signature (EIP-1271 blobs) is only lowercased.
 */
export function normalizeSignature(sig: string): string {
  const hex = (typeof sig === "string" ? sig : String(sig)).toLowerCase().replace(/^0x/, "");
  if (!/^[0-9a-f]*$/.test(hex)) return hex;
  let r: bigint;
  let s: bigint;
  let yParity: number;
  if (hex.length === 130) {
    r = BigInt("0x" + hex.slice(0, 64));
    s = BigInt("0x" + hex.slice(64, 128));
    const v = parseInt(hex.slice(128), 16);
    if (v === 0 || v === 1) yParity = v;
    else if (v === 27 || v === 28) yParity = v - 27;
    else return "0x" + hex;
  } else if (hex.length === 128) {
    r = BigInt("0x" + hex.slice(0, 64));
    const vs = BigInt("0x" + hex.slice(64));
    yParity = Number(vs >> 255n);
    s = vs & ((1n << 255n) - 1n);
  } else {
    return "0x" + hex;
  }
  if (s > SECP256K1_N / 2n) {
    s = SECP256K1_N - s;
    yParity ^= 1;
  }
  return "0x" + r.toString(16).padStart(64, "0") + s.toString(16).padStart(64, "0") + (27 + yParity).toString(16);
}
