// A body the body reader refused before any route saw it: cut short by its client, too
// large, in a charset or encoding it does not take, or data that does not decompress. A
// durable log (fixtures/wal-persistence.ts) records the refusal rather than the body, and
// its replay, which cannot send the same bytes, is refused the same way: the reader sees
// the mark and raises the same error, so the replay answers as the request was answered.

/** The error body-parser raised, as errors.ts reads it (its type, or zlib's code and errno). */
export interface BodyRefusal {
  status: number;
  type?: string;
  code?: string;
  errno?: number;
}

/** body-parser's refusal of a body its client stopped sending. */
export const CUT_SHORT: BodyRefusal = { status: 400, type: "request.aborted" };

const REFUSED = Symbol("fakex.bodyRefused");
type WithRefusal = { [REFUSED]?: BodyRefusal };

export function markBodyRefused(req: object, refusal: BodyRefusal): void {
  (req as WithRefusal)[REFUSED] = refusal;
}

/** What markBodyRefused recorded on the request, if anything. */
export function bodyRefusal(req: object): BodyRefusal | undefined {
  return (req as WithRefusal)[REFUSED];
}

/** The refusal as the error the body reader raised. */
export function refusalError(r: BodyRefusal): Error & BodyRefusal {
  return Object.assign(new Error(r.type ?? r.code ?? "body refused"), r);
}
