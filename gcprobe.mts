import { PerformanceObserver } from "node:perf_hooks";
import { buildEngine, engineInput, makeStream, collect } from "./bench/engine-stream.ts";
import type { ParsedOrder } from "./sim/core/engine.ts";
const N = 200_000;
const stream = makeStream(N, "42");
const input = engineInput(stream);
let gcMs = 0, gcCount = 0; const kinds: Record<string, number> = {};
const obs = new PerformanceObserver((l) => { for (const e of l.getEntries()) { gcMs += e.duration; gcCount++; const k = String((e as any).detail?.kind); kinds[k] = (kinds[k] ?? 0) + e.duration; } });
obs.observe({ entryTypes: ["gc"] });
for (let r = 0; r < 4; r++) {
  const engine = buildEngine("42");
  const parsed: ParsedOrder[] = input.map((b) => engine.validateOrder(b));
  collect();
  await new Promise((r) => setTimeout(r, 50));
  gcMs = 0; gcCount = 0; for (const k in kinds) delete kinds[k];
  const t0 = performance.now();
  for (let i = 0; i < parsed.length; i++) engine.placeParsed(parsed[i]!);
  const ms = performance.now() - t0;
  await new Promise((r) => setTimeout(r, 50));
  console.log(`round ${r}: ${(N / ms * 1000).toFixed(0)}/s, ${ms.toFixed(0)} ms, gc ${gcMs.toFixed(0)} ms in ${gcCount}`, JSON.stringify(kinds));
}
