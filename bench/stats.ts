// Small helpers shared by the bench scripts (statistics, machine line, env options, the bare Anvil baseline).
import os from "node:os";
import { startAnvil } from "../fixtures/anvil.ts";

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function describe(label: string, ms: readonly number[], digits = 1): string {
  const s = [...ms].sort((a, b) => a - b);
  return `${label}: median ${median(ms).toFixed(digits)} ms, range ${s[0]!.toFixed(digits)}–${s[s.length - 1]!.toFixed(digits)} ms over ${ms.length} runs`;
}

export function machine(): string {
  return `machine: ${os.platform()}-${os.arch()}, ${os.cpus().length} vCPU, node ${process.version}, load avg ${os.loadavg()[0]!.toFixed(1)}`;
}

export function envInt(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  const n = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got ${raw}`);
  return n;
}

/** One bare Anvil start (startAnvil: the binary until it answers RPC), in ms: the baseline the start-up ratios divide by. */
export async function bareAnvilStartMs(): Promise<number> {
  const t0 = performance.now();
  const anvil = await startAnvil();
  const ms = performance.now() - t0;
  await anvil.stop();
  return ms;
}
