// The property tooling against the real stack on Anvil: `fakex conformance` on a
// createFakeExchange deployment (what `fakex serve` runs), and replay bundles that
// carry an Anvil state dump which loads back into a fresh node.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFakeExchange, type FakeExchange } from "../../fixtures/fake-exchange.ts";
import { startAnvil } from "../../fixtures/anvil.ts";
import { anvilDumpState, anvilLoadState, assertWithReplay, formatConformanceTable, PropertyFailure, runConformance } from "../../properties/index.ts";

let ex: FakeExchange;
let clean: string;
const dir = mkdtempSync(join(tmpdir(), "fakex-anvil-replay-"));

beforeAll(async () => {
  ex = await createFakeExchange({ seed: 17 });
  clean = await ex.snapshot();
}, 120_000);

afterAll(async () => {
  await ex?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  return ((await r.json()) as { result: unknown }).result;
}

describe("conformance against createFakeExchange on Anvil", () => {
  it("read-only: all pass", async () => {
    await ex.restore(clean);
    const results = await runConformance({ baseUrl: ex.baseUrl, readOnly: true });
    expect(results.filter((r) => r.status !== "pass"), formatConformanceTable(results)).toEqual([]);
  }, 60_000);

  it("write set with a funded user (vault deposit through the control API): all pass", async () => {
    await ex.restore(clean);
    const user = ex.accounts[0]!;
    await ex.control.fund({ address: user.address, token: "EURC", amount: 100n * 10n ** 6n, vault: true });
    const results = await runConformance({ baseUrl: ex.baseUrl, privateKey: user.privateKey });
    expect(results.filter((r) => r.status !== "pass"), formatConformanceTable(results)).toEqual([]);
    expect(results.filter((r) => r.group === "write")).toHaveLength(5);
  }, 60_000);
});

describe("replay bundle with an Anvil state dump", () => {
  it("the dump in the bundle restores the chain state into another node", async () => {
    const probe = "0x000000000000000000000000000000000000beef";
    await rpc(ex.rpcUrl, "anvil_setBalance", [probe, "0x1234"]);
    let bundle: PropertyFailure["bundle"] | undefined;
    try {
      await assertWithReplay({ module: new URL("./toy-properties.ts", import.meta.url).href, export: "sumStaysSmall" }, { numRuns: 50 }, { dir, chainDump: () => anvilDumpState(ex.rpcUrl) });
    } catch (e) {
      bundle = (e as PropertyFailure).bundle;
    }
    expect(bundle?.chainDump).toMatch(/^0x[0-9a-f]+$/);
    const other = await startAnvil();
    try {
      expect(await rpc(other.rpcUrl, "eth_getBalance", [probe, "latest"])).toBe("0x0");
      expect(await anvilLoadState(other.rpcUrl, bundle!.chainDump!)).toBe(true);
      expect(await rpc(other.rpcUrl, "eth_getBalance", [probe, "latest"])).toBe("0x1234");
      // The deployed exchange contract came along too.
      expect(await rpc(other.rpcUrl, "eth_getCode", [ex.contracts.exchange, "latest"])).toMatch(/^0x[0-9a-f]{100,}$/);
    } finally {
      await other.stop();
    }
  }, 60_000);
});
