// What a route learns about a request that its answer does not show: the wallet a
// signature names, why a signature did not verify, the error code behind a rejection.
// The request journal (journal.ts) opens a note for each /api/v1 request; routes write
// to it through these functions without knowing the journal exists, and write nothing
// when no journal is running (AsyncLocalStorage carries the note across awaits).
import { AsyncLocalStorage } from "node:async_hooks";

export interface SignatureNearMiss {
  /** The field that did not check out ("signature"). */
  field: string;
  /** The wallet the request said signed it. */
  expected_signer: string | null;
  /** The wallet the signature bytes recover to (null: they recover nobody). */
  recovered_signer: string | null;
  /** The EIP-712 typed data the server checked the signature against. */
  typed_data: { domain: unknown; primaryType: string; types: unknown; message: unknown };
}

/** A forced route fault (/__fakex/routes) that decided what the client got. */
export interface FaultNote {
  /** 503, "timeout", "reset" or "truncate". */
  kind: string;
  /** True: the request took full effect first, and `committed_status` is the answer the client lost. */
  after_commit: boolean;
  committed_status: number | null;
}

export interface RequestNote {
  wallet?: string;
  fault?: FaultNote;
  /**
   * The fault was met again while a --state-dir log was replayed: the replay got the
   * answer that was logged, and the journal shows the one the client got the first time.
   */
  faultReplayed?: boolean;
  /** `field`: the request field the error names (the simulator's own note; the answer does not carry it). */
  error?: { code: string; detail: string; field?: string };
  signature?: SignatureNearMiss;
  /**
   * The request is waiting out a route rule's latency. A client that hangs up meanwhile
   * does not end its entry: the request is still served, and its entry ends with that.
   */
  delayed?: boolean;
}

const store = new AsyncLocalStorage<RequestNote>();

/** Run `fn` (the rest of the request) with `note` open for the routes to write to. */
export function withRequestNote<T>(note: RequestNote, fn: () => T): T {
  return store.run(note, fn);
}

/** The wallet a signed request acts for (the key's owner is read from res.locals). */
export function noteWallet(wallet: string): void {
  const n = store.getStore();
  if (n && n.wallet === undefined) n.wallet = wallet.toLowerCase();
}

export function noteSignatureMismatch(miss: SignatureNearMiss): void {
  const n = store.getStore();
  // Typed-data messages hold bigints: keep a plain JSON copy (entries go into snapshots).
  if (n) n.signature = JSON.parse(JSON.stringify(miss, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v))) as SignatureNearMiss;
}

/** The error an answer was shaped from (5xx bodies hide it; the journal keeps it). */
export function noteError(code: string, detail: string, field?: string): void {
  const n = store.getStore();
  if (n) n.error = field === undefined ? { code, detail } : { code, detail, field };
}

/** The request starts (true) or ends (false) waiting out a route rule's latency. */
export function noteDelayed(on: boolean): void {
  const n = store.getStore();
  if (!n) return;
  if (on) n.delayed = true;
  else delete n.delayed;
}

/** A route fault replaced (or, after commit, swallowed) this request's answer. */
export function noteFault(fault: FaultNote, replayed = false): void {
  const n = store.getStore();
  if (!n) return;
  n.fault = fault;
  if (replayed) n.faultReplayed = true;
}
