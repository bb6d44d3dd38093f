// Which failures name the chain node as not answering: every socket code, at any depth of
// `cause` (fetch wraps the socket error, viem wraps fetch's), and nothing else.
import { expect, it } from "vitest";
import { isNodeUnreachable } from "../../sim/chain/node-unreachable.ts";

const withCode = (code: string) => Object.assign(new Error(`socket: ${code}`), { code });
const wrapped = (inner: Error, depth: number): Error => (depth === 0 ? inner : new Error(`wrapper ${depth}`, { cause: wrapped(inner, depth - 1) }));

it("every socket code counts, bare and wrapped in causes", () => {
  for (const code of ["ECONNREFUSED", "ECONNRESET", "EPIPE", "ENOTCONN", "UND_ERR_SOCKET", "FAKEX_NODE_NOT_ANSWERING"]) {
    expect(isNodeUnreachable(withCode(code)), code).toBe(true);
    expect(isNodeUnreachable(wrapped(withCode(code), 3)), `${code} three causes deep`).toBe(true);
  }
  expect(isNodeUnreachable(wrapped(new TypeError("fetch failed"), 2))).toBe(true);
});

it("other failures do not", () => {
  expect(isNodeUnreachable(withCode("ENOENT"))).toBe(false);
  expect(isNodeUnreachable(wrapped(new Error("execution reverted"), 2))).toBe(false);
  expect(isNodeUnreachable(new TypeError("not a function"))).toBe(false);
  expect(isNodeUnreachable("ECONNREFUSED")).toBe(false);
});
