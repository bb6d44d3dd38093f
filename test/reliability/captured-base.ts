// A checkpoint's fixed members for the write-ahead log's tests, which only vary the layers
// and the time: what a WalPersistence's `capture` returns around them.
import type { CapturedState } from "../../fixtures/state-dir.ts";

export const capturedBase: Omit<CapturedState, "walGeneration" | "layersJson" | "savedAtMs"> = {
  identity: { seed: 1, chainId: 31337, users: 1, liquidity: false, configHash: "a".repeat(64), scenarioHash: null },
  config: { tokens: [], markets: [] } as never,
  deployment: { chainId: 31337 } as never,
  accounts: [],
  makers: [],
  liquidity: null,
  reoriented: [],
  domainName: "fakex",
  clockMode: "virtual",
  httpPort: 1,
  chain: "0x00",
  scenario: null,
  pendingTxs: [],
};
