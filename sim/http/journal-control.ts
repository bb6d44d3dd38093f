// The request journal over HTTP, mounted under /__fakex next to the control router:
//
//   GET    /requests?method=&path=&status=&owner=&since=&before=&limit=&offset=&bodies=&fills_limit=   newest first
//   GET    /requests/count?method=&path=&status=&owner=&since=&before=            {"count"}
//   GET    /requests/{id}?fills_offset=&fills_limit=                     one entry, links resolved (a page of its fills when asked)
//   DELETE /requests                                                      {"cleared"}
//
// `path` is exact or a pattern with * ("/api/v1/orders*"); `status` a code or a class
// ("4xx"); `since` virtual time as unix seconds or ISO-8601; `before` a request id (only
// requests received before it: pages that stay put while requests keep arriving).
// `bodies=0` leaves out each entry's request_body and response_body (up to 4 KiB each by
// default): what a list that shows neither, such as the viewer's once-a-second poll, needs.
import type { Router } from "express";
import { z } from "zod";
import { controlPrefixRouter, ControlInputError, checkQueryKeysOnce, isControlInputError, notAllowed } from "./control.ts";
import { instantMs } from "./time-bounds.ts";
import type { JournalFilter, RequestJournal } from "./journal.ts";
import { ADDRESS_RE } from "./fields.ts";
import { fillPage } from "./run-views.ts";

const filterQuery = z
  .object({
    method: z.string().regex(/^[A-Za-z]{1,10}$/).optional(),
    path: z.string().min(1).max(500).optional(),
    status: z.string().regex(/^([1-5]\d\d|[1-5]xx|0)$/i, "a status code (404, or 0 for no answer) or class (4xx)").optional(),
    owner: z.string().regex(ADDRESS_RE, "a 0x address").optional(),
    since: z.string().min(1).max(40).optional(),
    // Checked by the journal itself (RangeError → 400), the same rule as in code.
    before: z.string().max(40).optional(),
    limit: z.string().regex(/^\d{1,6}$/).optional(),
    offset: z.string().regex(/^\d{1,9}$/).optional(),
    // Not filters: how the list shows each entry (read by the list route only).
    bodies: z.enum(["0", "1"], { message: "0 (entries without their bodies) or 1" }).optional(),
    // One pattern for 0-500, so a bad value is said once.
    fills_limit: z.string().regex(/^(\d{1,2}|[1-4]\d\d|500)$/, "a whole number 0-500").optional(),
  })
  .strict();

/** Query string → filter; 400 (ControlInputError) on anything it cannot read. */
export function journalFilterOf(query: unknown): JournalFilter {
  checkQueryKeysOnce(query);
  const r = filterQuery.safeParse(query ?? {});
  if (!r.success) throw new ControlInputError(r.error.issues.map((i) => `${i.path.join(".") || "query"}: ${i.message}`).join("; "));
  const q = r.data;
  const f: JournalFilter = {};
  if (q.method !== undefined) f.method = q.method;
  if (q.path !== undefined) f.path = q.path;
  if (q.status !== undefined) f.status = q.status.toLowerCase();
  if (q.owner !== undefined) f.owner = q.owner;
  if (q.since !== undefined) f.sinceMs = sinceMs(q.since);
  if (q.before !== undefined) f.before = q.before;
  // Their bounds are the journal's own (list() throws a RangeError: 400 here).
  if (q.limit !== undefined) f.limit = Number(q.limit);
  if (q.offset !== undefined) f.offset = Number(q.offset);
  return f;
}

/** As GET /orders reads its time bounds: the same instant on every machine (a zone-less time is UTC). */
function sinceMs(s: string): number {
  const ms = instantMs(s);
  if (ms === null) throw new ControlInputError("since: Unix seconds or an ISO 8601 date-time (a time without a zone is UTC)");
  return ms;
}

/** `r`: the /__fakex router to add the routes to (see controlPrefixRouter). */
export function journalRouter(journal: RequestJournal, r: Router = controlPrefixRouter()): Router {
  r.route("/requests")
    .get((req, res) => {
      const fillsLimit = (req.query as Record<string, unknown>)["fills_limit"];
      // How many of each entry's fills to list (0: only their count, links.fills_total): a request that placed a resting order can link thousands.
      const page = journal.list(journalFilterOf(req.query), typeof fillsLimit === "string" ? Number(fillsLimit) : null);
      if ((req.query as Record<string, unknown>)["bodies"] !== "0") return void res.json(page);
      res.json({ ...page, entries: page.entries.map(({ request_body: _sent, response_body: _got, ...rest }) => rest) });
    })
    .delete((req, res) => {
      // It clears the whole journal: a filter (or a body) it would ignore is refused, not obeyed in part.
      const keys = Object.keys(req.query as object);
      // Not parsed here (this router reads no bodies): any body at all is one too many.
      const length = req.headers["content-length"];
      const hasBody = (length !== undefined && length !== "0") || req.headers["transfer-encoding"] !== undefined;
      if (keys.length > 0 || hasBody) {
        return void res.status(400).json({ detail: `DELETE /requests clears the whole journal and takes no ${keys.length > 0 ? `query (got ${keys.join(", ")})` : "body"}` });
      }
      res.json({ cleared: journal.clear() });
    })
    .all(notAllowed("GET", "DELETE"));
  r.route("/requests/count")
    .get((req, res) => {
      const f = journalFilterOf(req.query);
      const q = req.query as Record<string, unknown>;
      if (f.limit !== undefined || f.offset !== undefined || q["bodies"] !== undefined || q["fills_limit"] !== undefined) {
        throw new ControlInputError("count takes no limit, offset, bodies or fills_limit");
      }
      res.json({ count: journal.count(f) });
    })
    .all(notAllowed("GET"));
  r.route("/requests/:id")
    .get((req, res) => {
      const e = journal.get(String(req.params["id"]), fillPage(req));
      if (!e) {
        res.status(404).json({ detail: `no request ${JSON.stringify(req.params["id"])} in the journal (never made, cleared, or dropped by --journal-size)` });
        return;
      }
      res.json(e);
    })
    .all(notAllowed("GET"));
  r.use(((err, _req, res, next) => {
    if (res.headersSent) return next(err);
    if (isControlInputError(err)) res.status(400).json({ detail: err.message });
    else res.status(500).json({ detail: err instanceof Error ? err.message : String(err) });
  }) as import("express").ErrorRequestHandler);
  return r;
}
