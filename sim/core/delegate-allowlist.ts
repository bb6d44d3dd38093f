// The EIP-7702 delegates a relayed type-4 transaction may authorise. The spec: a type-4
// transaction "is rejected unless every authorization delegate is on the deployment
// allowlist". The live deployment has its list; fakex's starts empty, and a test adds the
// delegate contracts its wallets use (an option, a CLI flag or the control API), as data
// that snapshots and a state directory keep like every other layer.
import { isAddressText } from "./registry.ts";
import type { Address } from "./typed-data.ts";

/** More than any wallet set-up needs; bounds what one control call stores. */
export const MAX_DELEGATES = 100;

export class DelegateAllowlist {
  private addresses: Address[] = [];

  constructor(initial: unknown = []) {
    this.set(initial);
  }

  list(): Address[] {
    return [...this.addresses];
  }

  /** Replace the list (addresses in any letter case; repeats kept once). RangeError on anything else. */
  set(input: unknown): Address[] {
    if (!Array.isArray(input)) throw new RangeError("the delegate allowlist must be an array of addresses");
    if (input.length > MAX_DELEGATES) throw new RangeError(`the delegate allowlist takes at most ${MAX_DELEGATES} addresses, got ${input.length}`);
    const out: Address[] = [];
    input.forEach((a, i) => {
      if (typeof a !== "string" || !isAddressText(a)) throw new RangeError(`delegate allowlist[${i}] must be a 0x-prefixed 20-byte hex address, got ${JSON.stringify(a)}`);
      const lower = a.toLowerCase() as Address;
      if (!out.includes(lower)) out.push(lower);
    });
    this.addresses = out;
    return this.list();
  }

  snapshot(): Address[] {
    return this.list();
  }

  restore(state: readonly Address[]): void {
    this.addresses = [...state];
  }
}
