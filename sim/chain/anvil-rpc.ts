// A minimal JSON-RPC 2.0 client over HTTP for the Anvil port. viem's transport
// can batch too, but it hides which element of a batch failed; settlement needs
// one request carrying many presigned transactions and a per-element answer.
import { httpPostJson } from "./http-fetch.ts";

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

  /** One call; throws RpcError when the node answers with an error. */
  async call<T = unknown>(method: string, params: readonly unknown[] = []): Promise<T> {
    const [out] = await this.batch([{ method, params }]);
    if (!out!.ok) throw out!.error;
    return out!.result as T;
  }

  /** Many calls in ONE HTTP request; answers in call order, errors per element. */
  async batch(calls: readonly RpcCall[]): Promise<RpcOutcome[]> {
    if (calls.length === 0) return [];
    const firstId = this.nextId;
    this.nextId += calls.length;
    const body = calls.map((c, i) => ({ jsonrpc: "2.0", id: firstId + i, method: c.method, params: c.params }));
    const res = await httpPostJson(this.url, JSON.stringify(calls.length === 1 ? body[0] : body));
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
