// The order a market list puts its tokens in: the spec's canonical rule is
// base_address < quote_address, so keeping every market as a config writes it means
// giving the tokens addresses along a topological order of the "base below quote"
// graph. The registry's placeholder addresses and the deployment's token addresses
// (fixtures/token-addresses.ts) both follow this order.

export interface MarketPair {
  base: string;
  quote: string;
}

/**
 * `symbols` so that every market's base comes before its quote, ties in the order given
 * (markets naming unknown symbols are ignored). When the markets loop, `order` is null
 * and `cycle` names one loop's markets as "BASE/QUOTE", from the symbol listed first.
 */
export function baseBeforeQuoteOrder(
  symbols: readonly string[],
  markets: readonly MarketPair[],
): { order: string[]; cycle: null } | { order: null; cycle: string[] } {
  const index = new Map(symbols.map((s, i) => [s, i]));
  const succ: number[][] = symbols.map(() => []);
  const pred: number[][] = symbols.map(() => []);
  for (const m of markets) {
    const b = index.get(m.base);
    const q = index.get(m.quote);
    if (b === undefined || q === undefined || b === q) continue;
    succ[b]!.push(q);
    pred[q]!.push(b);
  }
  const waiting = pred.map((p) => p.length);
  const ready = symbols.map((_, i) => i).filter((i) => waiting[i] === 0);
  const order: string[] = [];
  while (ready.length > 0) {
    ready.sort((a, b) => a - b);
    const i = ready.shift()!;
    order.push(symbols[i]!);
    for (const j of succ[i]!) if (--waiting[j]! === 0) ready.push(j);
  }
  if (order.length === symbols.length) return { order, cycle: null };

  // Walk predecessors among the symbols left over until one repeats: that loop is a cycle.
  const left = new Set(symbols.map((_, i) => i).filter((i) => waiting[i]! > 0));
  const path: number[] = [];
  let at = Math.min(...left);
  while (!path.includes(at)) {
    path.push(at);
    at = pred[at]!.find((p) => left.has(p))!;
  }
  const walked = path.slice(path.indexOf(at)).reverse();
  const first = walked.indexOf(Math.min(...walked));
  const loop = [...walked.slice(first), ...walked.slice(0, first)].map((i) => symbols[i]!);
  return { order: null, cycle: loop.map((base, k) => `${base}/${loop[(k + 1) % loop.length]}`) };
}
