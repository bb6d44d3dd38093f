// A minimal JSON-RPC 2.0 client over HTTP for the Anvil port. viem's transport
// can batch too, but it hides which element of a batch failed; settlement needs
// one request carrying many presigned transactions and a per-element answer.
import { httpPostJson } from "./http-fetch.ts";

/**
 * How long a call waits for the node's answer before the node counts as not answering: a
 * stopped or hung node (a SIGSTOP, a debugger) must not hold a request, a settlement or a
 * test's restore for good. Mining many blocks is let wait longer (Anvil.mine).
 */
export const RPC_DEADLINE_MS = 30_000;

/**
 * The most text one request carries: Anvil drops a request over ~2 MB (it closes the
 * connection; EPIPE here), and one settlement transaction of 20 matches is ~26 kB of text.
 */
export const MAX_REQUEST_CHARS = 1_000_000;

/** `items` in consecutive runs of at most `maxChars` by `charsOf`, one request each. */
export function requestPieces<T>(items: readonly T[], charsOf: (item: T) => number, maxChars = MAX_REQUEST_CHARS): T[][] {
  const pieces: T[][] = [];
  let size = Infinity;
  for (const item of items) {
    const chars = charsOf(item);
    if (size + chars > maxChars) {
      pieces.push([]);
      size = 0;
    }
    pieces[pieces.length - 1]!.push(item);
    size += chars;
  }
  return pieces;
}

/** The node did not answer within the deadline (isNodeUnreachable counts it: a 503 to the client). */
export class NodeNotAnsweringError extends Error {
  readonly code = "FAKEX_NODE_NOT_ANSWERING";
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "NodeNotAnsweringError";
  }
}

export interface RpcCall {
  method: string;
  params: readonly unknown[];
}

/** A JSON-RPC error object returned by the node. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "RpcError";
  }
}

/** One element of a batch answer: either a result or the node's error. */
export type RpcOutcome = { ok: true; result: unknown } | { ok: false; error: RpcError };

interface RpcResponse {
  id: number;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export class JsonRpcClient {
  private nextId = 1;

  constructor(readonly url: string) {}

  /** One call; throws RpcError when the node answers with an error. `deadlineMs`: Infinity to wait without a bound. */
  async call<T = unknown>(method: string, params: readonly unknown[] = [], deadlineMs = RPC_DEADLINE_MS): Promise<T> {
    const [out] = await this.batch([{ method, params }], deadlineMs);
    if (!out!.ok) throw out!.error;
    return out!.result as T;
  }

  /**
   * batch() for calls that may be more than one request takes (raw transactions resent by a
   * restore): runs of them one request after another, so the node still runs them in this
   * order. One request when they fit, as batch().
   */
  async batchInOrder(calls: readonly RpcCall[]): Promise<RpcOutcome[]> {
    const outs: RpcOutcome[] = [];
    for (const piece of requestPieces(calls, (c) => JSON.stringify(c.params).length + c.method.length + 64)) outs.push(...(await this.batch(piece)));
    return outs;
  }

  /** Many calls in ONE HTTP request; answers in call order, errors per element. */
  async batch(calls: readonly RpcCall[], deadlineMs = RPC_DEADLINE_MS): Promise<RpcOutcome[]> {
    if (calls.length === 0) return [];
    const firstId = this.nextId;
    this.nextId += calls.length;
    const body = calls.map((c, i) => ({ jsonrpc: "2.0", id: firstId + i, method: c.method, params: c.params }));
    const signal = Number.isFinite(deadlineMs) ? AbortSignal.timeout(deadlineMs) : undefined;
    const res = await httpPostJson(this.url, JSON.stringify(calls.length === 1 ? body[0] : body), signal).catch((e: unknown) => {
      if (!signal?.aborted) throw e;
      const what = calls.length === 1 ? calls[0]!.method : `a batch of ${calls.length} calls (${calls[0]!.method}, ...)`;
      throw new NodeNotAnsweringError(`the chain node at ${this.url} did not answer ${what} within ${+(deadlineMs / 1000).toFixed(1)} s (stopped, paused or hung)`, { cause: e });
    });
    if (res.status < 200 || res.status > 299) throw new Error(`JSON-RPC HTTP ${res.status} from ${this.url}`);
    const parsed = JSON.parse(res.text) as RpcResponse | RpcResponse[];
    const list = Array.isArray(parsed) ? parsed : [parsed];
    const byId = new Map(list.map((r) => [r.id, r]));
    return calls.map((c, i) => {
      const r = byId.get(firstId + i);
      if (!r) return { ok: false, error: new RpcError(-32603, `no answer for ${c.method} in the batch`) };
      if (r.error) return { ok: false, error: new RpcError(r.error.code, r.error.message, r.error.data) };
      return { ok: true, result: r.result };
    });
  }
}

export const toQuantity = (n: bigint | number): string => `0x${n.toString(16)}`;
