// fakex ships two builds (ES modules and CommonJS). A program that loads both (a CommonJS
// test helper beside an ESM test file, a vitest config and its tests) gets two copies of
// every module, so an error one copy throws is not `instanceof` the other copy's class, and
// module-level state (the running Anvils) is kept twice. The helpers here make both copies
// agree: classes carry a brand in the global symbol registry that `instanceof` checks, and
// process-wide state lives under a global symbol.

const BRAND = Symbol.for("fakex.class-brand");

type Branded = { [BRAND]?: string };

/** Whether some constructor on `x`'s prototype chain carries `brand` as its own. */
function hasBrand(x: unknown, brand: string): boolean {
  if (x === null || (typeof x !== "object" && typeof x !== "function")) return false;
  for (let p: object | null = Object.getPrototypeOf(x); p !== null; p = Object.getPrototypeOf(p)) {
    const c = Object.prototype.hasOwnProperty.call(p, "constructor") ? (p as { constructor: unknown }).constructor : undefined;
    if (typeof c === "function" && Object.prototype.hasOwnProperty.call(c, BRAND) && (c as Branded)[BRAND] === brand) return true;
  }
  return false;
}

/**
 * Make `instanceof cls` hold for instances of the same class from fakex's other build:
 * `name` (unique among fakex's classes) is the brand both copies share. A subclass that is
 * not branded itself keeps plain `instanceof` (it does not inherit its parent's brand check).
 */
export function sameClassAcrossBuilds(cls: abstract new (...args: never[]) => object, name: string): void {
  Object.defineProperty(cls, BRAND, { value: `fakex.${name}` });
  Object.defineProperty(cls, Symbol.hasInstance, {
    value(this: Function, x: unknown): boolean {
      if (Function.prototype[Symbol.hasInstance].call(this, x)) return true;
      return Object.prototype.hasOwnProperty.call(this, BRAND) && hasBrand(x, (this as Branded)[BRAND]!);
    },
  });
}

/** A value shared by both builds in this process (made by `create` the first time either asks). */
export function processWide<T>(key: string, create: () => T): T {
  const slot = Symbol.for(`fakex.${key}`);
  const g = globalThis as Record<symbol, unknown>;
  if (!(slot in g)) g[slot] = create();
  return g[slot] as T;
}
