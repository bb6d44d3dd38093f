// The fakex run viewer: plain ES modules, preact + htm for the views, uPlot for charts.
// Served: it reads the control JSON under /__fakex (the same endpoints tests read) and
// polls while open. As a report (fakex report): the same views over data captured in
// the page (<script id="fakex-report">), routed by the URL's #fragment.
import { h, render } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import htm from "htm";
import uPlot from "uplot";

const html = htm.bind(h);
// The control API this page belongs to: /__fakex, or /<id>/__fakex for a pool instance
// (the page's own path says which; the static files are the same for every instance).
const CONTROL = (() => {
  const at = location.pathname.indexOf("/__fakex/ui");
  return at > 0 ? `${location.pathname.slice(0, at)}/__fakex` : "/__fakex";
})();
const UI = `${CONTROL}/ui`;
const POLL_MS = 1000;
const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";
/** The pool id this page shows, if it is a pool instance's (two tabs on two ids must look different). */
const POOL_ID = CONTROL === "/__fakex" ? null : decodeURIComponent(CONTROL.slice(1, -"/__fakex".length));
/** Journal entries per page of the request list. */
const REQUESTS_PAGE = 200;

const reportNode = document.getElementById("fakex-report");
const REPORT = reportNode ? JSON.parse(reportNode.textContent) : null;

// ---------------------------------------------------------------- data and routing

/**
 * GET a control view: its JSON text and its value; in a report, the captured answer for its
 * path (queries aside).
 */
async function getAnswer(path) {
  if (REPORT) {
    const key = path.split("?")[0];
    if (!(key in REPORT.data)) throw new Error(`not captured in this report: ${key}`);
    return { text: null, data: REPORT.data[key] };
  }
  // x-fakex-viewer: on a pool, polling a released id answers 404 instead of creating it anew.
  const res = await reach(CONTROL + path, { headers: { accept: "application/json", "x-fakex-viewer": "1" } });
  const text = await res.text().catch(() => "");
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = {};
  }
  if (!res.ok) throw Object.assign(new Error(body.detail ? (typeof body.detail === "string" ? body.detail : JSON.stringify(body.detail)) : `HTTP ${res.status}`), { status: res.status });
  return { text, data: body };
}

/** fetch, saying what a network failure means here (the browser's own words are "Failed to fetch"). */
async function reach(url, init) {
  try {
    return await fetch(url, init);
  } catch {
    throw new Error(`the fakex server at ${location.host} does not answer (stopped?)`);
  }
}

async function post(path, body) {
  // x-fakex-viewer here too: a button on a released pool id's tab must not bring the id back.
  const res = await reach(CONTROL + path, { method: "POST", headers: { "content-type": "application/json", "x-fakex-viewer": "1" }, body: JSON.stringify(body ?? {}) });
  const out = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(out.detail ?? `HTTP ${res.status}`);
  return out;
}

/** The view's path below /__fakex/ui ("/", "/orders/abc"). */
function currentRoute() {
  const p = REPORT ? location.hash.replace(/^#/, "").split("?")[0] : location.pathname.startsWith(UI) ? location.pathname.slice(UI.length) : "/";
  // A trailing slash names the same view (/requests/r5/ is request r5).
  return decodeURIComponent(p).replace(/(.)\/+$/, "$1") || "/";
}

/** The view's query (a filtered, paged request list has an address of its own). */
function routeQuery() {
  return new URLSearchParams(REPORT ? (location.hash.split("?")[1] ?? "") : location.search);
}

/**
 * Put `params` in the address: as a new history entry when `push` (a page or filter the user
 * moved to, which Back returns from), else in place (the view's own corrections).
 */
function setRouteQuery(params, push = false) {
  const q = params.toString();
  const route = currentRoute();
  const url = REPORT ? `#${route}${q ? `?${q}` : ""}` : `${href(route)}${q ? `?${q}` : ""}`;
  if (url === (REPORT ? location.hash : location.pathname + location.search)) return;
  if (push) history.pushState(null, "", url);
  else history.replaceState(null, "", url);
}

function href(route) {
  const encoded = route.split("/").map(encodeURIComponent).join("/");
  return REPORT ? `#${encoded}` : `${UI}${encoded}`;
}

/** A route's address, with `query` (URLSearchParams) after it when given: a filtered list's link. */
function hrefWith(route, query) {
  const q = query ? query.toString() : "";
  return `${href(route)}${q ? `?${q}` : ""}`;
}

function navigate(route, query) {
  if (REPORT) location.hash = hrefWith(route, query).slice(1);
  else history.pushState(null, "", hrefWith(route, query));
  window.dispatchEvent(new Event("fakex:navigate"));
}

function Link({ to, query, children, cls, title, current }) {
  const onClick = (e) => {
    if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
    e.preventDefault();
    navigate(to, query);
  };
  return html`<a class=${cls} href=${hrefWith(to, query)} title=${title} aria-current=${current ?? undefined} onClick=${onClick}>${children}</a>`;
}

// ---------------------------------------------------------------- polling

/**
 * One read per path however many views show it (the run panel, the order list and the
 * timeline all read /run). The next read of a path starts POLL_MS after the last one
 * settled, so a slow server never gets a queue of them; an answer that is the same text as
 * the last re-renders nothing. While live updates are paused nothing is read unless asked.
 */
const reads = new Map();
/** Answers kept for paths no view shows now: Back shows the last one at once (and while the server is down). */
const KEPT_ANSWERS = 20;
let livePaused = false;
const pauseWatchers = new Set();
const NO_ANSWER = { data: null, error: null };

function readOf(path) {
  let r = reads.get(path);
  if (!r) {
    r = { path, views: new Map(), answer: NO_ANSWER, text: null, timer: null, reading: false, again: false };
    reads.set(path, r);
  }
  return r;
}

function readNow(r) {
  if (r.reading) return;
  clearTimeout(r.timer);
  r.timer = null;
  r.reading = true;
  getAnswer(r.path).then(
    ({ text, data }) => {
      const same = text !== null && text === r.text && r.answer.error === null;
      r.text = text;
      if (!same) r.answer = { data, error: null };
      return same;
    },
    // A failed read keeps the path's last data next to the error, unless the thing is gone (404).
    (e) => {
      r.text = null;
      r.answer = { data: e.status === 404 ? null : r.answer.data, error: String(e.message ?? e) };
      return false;
    },
  ).then((same) => {
    r.reading = false;
    if (!same) {
      for (const show of r.views.keys()) show(r.answer);
      requestAnimationFrame(keepFocusInView);
    }
    if (r.again) {
      r.again = false;
      readNow(r);
    } else scheduleRead(r);
  });
}

/** The element focus was last on: a live update can remove it (its row left the page). */
let lastFocused = null;
document.addEventListener("focusin", (e) => {
  lastFocused = e.target;
});

/**
 * After a live update: a focused row the update removed leaves focus on the page's body,
 * where the next Tab starts over at the top; it goes to the view's heading instead.
 */
function keepFocusInView() {
  if (lastFocused && !lastFocused.isConnected && (document.activeElement === document.body || document.activeElement === null)) {
    lastFocused = null;
    focusView();
  }
}

function scheduleRead(r) {
  clearTimeout(r.timer);
  r.timer = null;
  const polled = [...r.views.values()].some(Boolean);
  if (!REPORT && !livePaused && polled) r.timer = setTimeout(() => readNow(r), POLL_MS);
}

/** Show `path`'s answers through `show`; `polled`: read again every POLL_MS while live. Returns the way out. */
function watchPath(path, show, polled) {
  const r = readOf(path);
  // Most recently watched last: the oldest unwatched answers are the ones let go.
  reads.delete(path);
  reads.set(path, r);
  r.views.set(show, polled);
  readNow(r);
  return () => {
    r.views.delete(show);
    if (r.views.size > 0) return;
    clearTimeout(r.timer);
    r.timer = null;
    const unwatched = [...reads.values()].filter((x) => x.views.size === 0);
    for (const x of unwatched.slice(0, Math.max(0, unwatched.length - KEPT_ANSWERS))) reads.delete(x.path);
  };
}

/** Read `path` again now (after an action), after the read in flight if there is one. */
function readAgain(path) {
  const r = reads.get(path);
  if (!r) return;
  if (r.reading) r.again = true;
  else readNow(r);
}

/** Pause or resume live updates (every view's polling); resuming reads every shown path at once. */
function setLivePaused(paused) {
  livePaused = paused;
  for (const r of reads.values()) {
    if (r.views.size === 0) continue;
    if (paused) {
      clearTimeout(r.timer);
      r.timer = null;
    } else readNow(r);
  }
  for (const f of pauseWatchers) f(paused);
}

function useLivePaused() {
  const [paused, setPaused] = useState(livePaused);
  useEffect(() => {
    pauseWatchers.add(setPaused);
    return () => pauseWatchers.delete(setPaused);
  }, []);
  return paused;
}

/**
 * `path`'s data, read now and, served and live, every POLL_MS; `tick` reads it again at once
 * after an action. `polled` false: a path whose answer does not change (a window of the event
 * log ending at a given event) is read when shown, not every second.
 */
function useData(path, tick, polled = true) {
  const [state, setState] = useState(() => ({ path, ...(reads.get(path)?.answer ?? NO_ANSWER) }));
  const watching = useRef(null);
  useEffect(() => {
    if (watching.current?.path === path) {
      readAgain(path);
      return;
    }
    watching.current?.stop();
    setState({ path, ...(reads.get(path)?.answer ?? NO_ANSWER) });
    watching.current = { path, stop: watchPath(path, (answer) => setState({ path, ...answer }), polled) };
  }, [path, tick]);
  useEffect(() => () => watching.current?.stop(), []);
  // Another path's data is never shown under this view's heading while this one loads.
  return state.path === path ? state : { path, ...(reads.get(path)?.answer ?? NO_ANSWER) };
}

// ---------------------------------------------------------------- small pieces

/** An order's expiration (Unix seconds, as the API sends it) in the ISO form created_at has. */
const expiresIso = (sec) => (Number.isFinite(Number(sec)) && sec !== null && sec !== "" ? new Date(Number(sec) * 1000).toISOString() : "—");

/** "1 fill", "3 fills". */
const counted = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const short = (s, n = 10) => (typeof s === "string" && s.length > n + 4 ? `${s.slice(0, n)}…` : s);
const Status = ({ s }) => html`<span class=${`status status-${s}`}>${s ?? "—"}</span>`;
/** A raw token amount (decimal string of base units) in whole tokens: "1500000", 6 → "1.5". */
function units(raw, decimals) {
  if (typeof raw !== "string" || !/^\d+$/.test(raw) || !Number.isInteger(decimals) || decimals <= 0) return raw;
  const s = raw.padStart(decimals + 1, "0");
  const frac = s.slice(s.length - decimals).replace(/0+$/, "");
  return `${s.slice(0, s.length - decimals)}${frac ? `.${frac}` : ""}`;
}
const Amount = ({ raw, decimals }) => html`<span title=${`${raw} raw`}>${units(raw, decimals)}</span>`;
/** A wallet address, linked to its account page. */
const Wallet = ({ address, full }) => {
  if (!address) return html`<span class="muted">—</span>`;
  const shown = html`<code title=${address}>${full ? address : short(address)}</code>`;
  // A report holds the pages of some accounts only: the others are plain text there.
  if (REPORT && !(`/accounts/${address}` in REPORT.data)) return shown;
  return html`<${Link} to=${`/accounts/${address}`} title=${address}>${shown}<//>`;
};
const Hash = ({ v }) => (v ? html`<code class="hash" title=${v}>${v}</code>` : html`<span class="muted">—</span>`);
/** A scrolling box of text: a tab stop with a name, so a keyboard can scroll it in every browser. */
const Scroller = ({ label, text }) => html`<pre class="json" tabindex="0" aria-label=${label}>${text}</pre>`;
const Json = ({ v, label }) => html`<${Scroller} label=${label} text=${typeof v === "string" ? v : JSON.stringify(v, null, 2)} />`;

/** Bytes (base64) as a hex dump: offset, then 16 bytes to a line. */
function hexDump(base64) {
  const bytes = atob(base64);
  const lines = [];
  for (let i = 0; i < bytes.length; i += 16) {
    const row = [];
    for (let j = i; j < Math.min(i + 16, bytes.length); j++) row.push(bytes.charCodeAt(j).toString(16).padStart(2, "0"));
    lines.push(`${i.toString(16).padStart(6, "0")}  ${row.join(" ")}`);
  }
  return lines.join("\n");
}

function Body({ copy, label }) {
  if (!copy) return html`<span class="muted">none</span>`;
  if (copy.encoding === "base64") {
    const shown = atob(copy.text).length;
    return html`<div><${Scroller} label=${label} text=${hexDump(copy.text)} /><p class="muted" data-testid="binary-body">not UTF-8 text: its bytes in hex${copy.truncated ? `, the first ${shown} of ${copy.bytes}` : `, ${copy.bytes} in all`}</p></div>`;
  }
  let text = copy.text;
  try {
    if (!copy.truncated) text = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // not JSON: shown as sent
  }
  return html`<div><${Scroller} label=${label} text=${text} />${copy.truncated ? html`<p class="muted">truncated: ${copy.bytes} bytes in all</p>` : null}</div>`;
}

/**
 * A view's data, "loading…" or the error. An error is an element of its own (a paragraph
 * turned into an alert in place is announced unreliably); `quiet` for a panel whose error
 * the view next to it announces already (a stopped server would be said twice).
 */
function Loading({ state, children, quiet }) {
  const said = state.error && state.data ? `${state.error}; the page shows what it last read` : state.error;
  const error = state.error ? html`<p key="error" class="error" role=${quiet ? undefined : "alert"}>${said}</p>` : null;
  if (state.error && !state.data) return error;
  if (!state.data) return html`<p key="loading" class="muted">loading…</p>`;
  return html`${error}${children(state.data)}`;
}

/** A uPlot chart that follows its data (rebuilt when the data changes shape). */
function Chart({ opts, data, summary }) {
  const el = useRef(null);
  const plot = useRef(null);
  useEffect(() => {
    if (!el.current) return;
    const width = Math.max(160, el.current.clientWidth || 600);
    plot.current?.destroy();
    plot.current = new uPlot({ ...opts, width, height: opts.height ?? 220 }, data, el.current);
    el.current.querySelector(".u-legend")?.setAttribute("aria-hidden", "true");
    return () => {
      plot.current?.destroy();
      plot.current = null;
    };
  }, [JSON.stringify(data), JSON.stringify(opts.series.map((s) => s.label))]);
  // And the window's width: a narrower window must not leave the chart overflowing until the data changes.
  useEffect(() => {
    const fit = () => {
      if (plot.current && el.current) plot.current.setSize({ width: Math.max(160, el.current.clientWidth || 600), height: opts.height ?? 220 });
    };
    window.addEventListener("resize", fit);
    return () => window.removeEventListener("resize", fit);
  }, []);
  return html`<div class="chart" role="img" aria-label=${summary} ref=${el}></div>`;
}

// ---------------------------------------------------------------- run panel and controls

function RunPanel({ tick, bump }) {
  const state = useData("/run", tick);
  const paused = useLivePaused();
  const [seconds, setSeconds] = useState("60");
  const [snapId, setSnapId] = useState("");
  const [message, setMessage] = useState("");
  // One action at a time: an advance with market activity can take seconds, and a second
  // action's answer would otherwise be overwritten by the first one's.
  const [busy, setBusy] = useState(null);
  // A status region announces a change: the same text again is cleared first so it is read again.
  const saying = useRef(null);
  const say = (text) => {
    setMessage("");
    clearTimeout(saying.current);
    saying.current = setTimeout(() => setMessage(text), 50);
  };
  const advance = () => {
    if (busy) return;
    const s = seconds.trim();
    if (!/^\d{1,9}$/.test(s)) return say(`advance: enter a whole number of seconds, not "${s}"`);
    return act("advance", () => post("/clock/advance", { seconds: Number(s) }))();
  };
  const act = (label, fn) => async () => {
    if (busy) return;
    // An action's own messages replace one still on its way.
    clearTimeout(saying.current);
    setBusy(label);
    setMessage(`${label}: running…`);
    try {
      const out = await fn();
      setMessage(`${label}: ${JSON.stringify(out)}`);
    } catch (e) {
      setMessage(`${label} failed: ${e.message}`);
    } finally {
      setBusy(null);
    }
    bump();
  };
  const off = busy !== null;
  const narrow = useNarrowWindow();
  const facts = html`<${Loading} state=${state} quiet=${true}>${(r) => html`
      <dl class="facts">
        <div><dt>Virtual clock</dt><dd><strong data-testid="clock">${r.clock.iso}</strong> <span class="muted">(${r.clock.now})</span>${paused ? html` <strong data-testid="paused">live updates paused</strong>` : null}</dd></div>
        <div><dt>Block mode</dt><dd><strong>${r.block_mode.mode}${r.block_mode.seconds ? ` ${r.block_mode.seconds}s` : ""}</strong></dd></div>
        <div><dt>Health</dt><dd><${Status} s=${r.health.status} /> <span class="muted">executor ${r.health.executor_id}</span></dd></div>
        <div><dt>Fault plan</dt><dd><code>${Object.keys(r.fault_plan ?? {}).length ? JSON.stringify(r.fault_plan) : "none"}</code></dd></div>
        <div><dt>Route faults</dt><dd><code>${r.route_faults.length ? `${r.route_faults.length} rule(s)` : "none"}</code></dd></div>
        <div><dt>Counts</dt><dd>${counted(r.counts.orders, "order")} · ${counted(r.counts.fills, "fill")} · ${counted(r.counts.settlement_batches, "batch", "batches")} · ${counted(r.counts.requests, "request")} · ${counted(r.counts.events, "event")}</dd></div>
      </dl>`}<//>`;
  // The status region stays outside the narrow window's fold: an action's outcome is said and seen.
  const said = html`<span class="message" role="status" data-testid="message">${message}</span>`;
  const controls = html`${REPORT
      ? html`<p class="muted">Report of a run, captured ${REPORT.captured_at} (wall clock; the run's own times are its virtual clock's) from ${REPORT.source}.</p>`
      : html`<div class="controls">
          <span class="field"><span class="hint" aria-hidden="true">seconds</span><input aria-label="seconds" title="seconds to advance the clock by" size="6" value=${seconds} onInput=${(e) => setSeconds(e.target.value)} onKeyDown=${(e) => e.key === "Enter" && !off && advance()} /></span>
          <button data-action="advance" aria-disabled=${off ? "true" : "false"} onClick=${advance}>Advance clock</button>
          <button data-action="mine" aria-disabled=${off ? "true" : "false"} onClick=${act("mine", () => post("/mine", { blocks: 1 }))}>Mine block</button>
          <button data-action="settle" aria-disabled=${off ? "true" : "false"} onClick=${act("settle", () => post("/settle"))}>Settle</button>
          <button data-action="snapshot" aria-disabled=${off ? "true" : "false"} onClick=${act("snapshot", async () => {
            const out = await post("/snapshot");
            setSnapId(out.id);
            return out;
          })}>Snapshot</button>
          <span class="field"><span class="hint" aria-hidden="true">snapshot</span><input aria-label="snapshot id" title="the snapshot id to restore" size="4" placeholder="id" value=${snapId} onInput=${(e) => setSnapId(e.target.value)} /></span>
          <button data-action="restore" aria-disabled=${off ? "true" : "false"} onClick=${act("restore", () => post("/restore", { id: snapId }))}>Restore</button>
          <button data-action="pause" aria-pressed=${paused ? "true" : "false"} title="stop reading the run every second (an action still shows its outcome)" onClick=${() => setLivePaused(!paused)}>Pause live updates</button>
        </div>`}`;
  // A narrow window (a phone, 200 % zoom): the panel folds to one line, so each view starts on
  // the first screen. Wide, the same tree stays open with its summary hidden: crossing the
  // width keeps the controls (and the focus on one) in place.
  const r = state.data;
  return html`<section class="panel run" aria-labelledby="run-heading"><h2 id="run-heading" class="visually-hidden">Run</h2>
    <details class=${narrow ? "run-fold" : "run-fold wide"} open=${narrow ? undefined : true}><summary tabindex=${narrow ? undefined : "-1"}>Run${r ? html` <strong data-testid="clock-summary">${r.clock.iso}</strong> · ${counted(r.counts.orders, "order")}` : ""}${paused ? " · live updates paused" : ""}</summary>${facts}${controls}</details>${REPORT ? null : said}
  </section>`;
}

/** The window width under which the run panel folds to one line. */
const NARROW_WINDOW = "(max-width: 640px)";

function useNarrowWindow() {
  const [narrow, setNarrow] = useState(() => matchMedia(NARROW_WINDOW).matches);
  useEffect(() => {
    const list = matchMedia(NARROW_WINDOW);
    const follow = () => setNarrow(list.matches);
    list.addEventListener("change", follow);
    return () => list.removeEventListener("change", follow);
  }, []);
  return narrow;
}

// ---------------------------------------------------------------- views

function OrdersTable({ orders, ownerless }) {
  if (!orders.length) return html`<p class="muted">No orders yet.</p>`;
  return html`<table class="orders">
    <thead><tr><th>Order</th>${ownerless ? null : html`<th>Owner</th>`}<th>Market</th><th>Side</th><th>Type</th><th>Price</th><th>Amount</th><th>Filled</th><th>Status</th><th>Created</th></tr></thead>
    <tbody>${orders.map(
      (o) => html`<tr key=${o.order_id} data-order-id=${o.order_id}>
        <td><${Link} to=${`/orders/${o.order_id}`}><code>${o.order_id}</code><//></td>
        ${ownerless ? null : html`<td><${Wallet} address=${o.owner} /></td>`}
        <td>${o.symbol}</td><td>${o.side}</td><td>${o.order_type}</td>
        <td class="num">${o.price}</td><td class="num">${o.amount}</td><td class="num">${o.filled_base_amount}</td>
        <td><${Status} s=${o.status} /></td><td>${o.created_at}</td>
      </tr>`,
    )}</tbody>
  </table>`;
}

/**
 * A page move from a Newer / Older button: the buttons are replaced while the page loads,
 * which would leave keyboard focus nowhere, so it goes to the list's heading.
 */
function movePage(move, ...args) {
  move(...args);
  focusView();
}

/**
 * Newer / Older buttons over a list of `total` entries shown `size` at a time from `offset`
 * (`labels`: the two buttons' words for a list in another order).
 */
function Pager({ offset, size, total, moveTo, held, heldOf, labels = ["Newer", "Older"] }) {
  if (total <= size && offset === 0) return null;
  // A list that shrank under this page (a restore) still offers the way back.
  const last = Math.max(0, Math.floor((total - 1) / size) * size);
  return html`<div class="controls"><span class="muted">${total ? `${Math.min(offset + 1, total)}–${Math.min(offset + size, total)} shown` : "none here"}${held ? `; ${heldOf ?? `the first ${total}`} only, newer ones are on the first page` : ""}</span>
    ${offset > 0 ? html`<button onClick=${() => movePage(moveTo, Math.min(Math.max(0, offset - size), last))}>${labels[0]}</button>` : null}
    ${offset + size < total ? html`<button onClick=${() => movePage(moveTo, offset + size)}>${labels[1]}</button>` : null}</div>`;
}

const FILLS_PAGE = 100;

/**
 * One order's or one request's fills a page at a time, in fill order (a resting order can
 * collect thousands; the page is read every second): `path` with the page asked of the
 * server, or, in a report (which holds them all), the page cut here.
 */
function useFillPage(path) {
  const [at, setAt] = useState({ path, offset: 0 });
  const offset = at.path === path ? at.offset : 0;
  return {
    offset,
    moveTo: (o) => setAt({ path, offset: o }),
    path: REPORT ? path : `${path}?fills_offset=${offset}&fills_limit=${FILLS_PAGE}`,
    /** The page's fills, how many there are, and the batches of the page's fills. */
    pageOf: (fills, total, batches) => {
      const page = pageOf(fills, total, offset, FILLS_PAGE);
      if (!REPORT) return { fills: page.rows, total: page.total, batches };
      const ids = new Set(page.rows.map((f) => f.settlement_id));
      return { fills: page.rows, total: page.total, batches: batches.filter((b) => ids.has(b.settlement_id)) };
    },
  };
}

/** The fills of a page, their pager and their batches (`compact`: a request's, with when each was made). */
function PagedFills({ paged, fills, total, batches, compact, heading }) {
  const page = paged.pageOf(fills, total, batches);
  const Heading = heading;
  // Fewer fills than this page starts at (a restore): to the last page there is.
  useEffect(() => {
    if (page.total > 0 && paged.offset >= page.total) paged.moveTo(Math.floor((page.total - 1) / FILLS_PAGE) * FILLS_PAGE);
  }, [page.total, paged.offset]);
  return html`<${Heading}>Fills${page.total > FILLS_PAGE ? ` (${page.total})` : ""}<//><${FillsTable} fills=${page.fills} compact=${compact} />
    <${Pager} offset=${paged.offset} size=${FILLS_PAGE} total=${page.total} moveTo=${paged.moveTo} labels=${["Earlier fills", "Later fills"]} />
    <${Heading}>Settlement batches${page.total > FILLS_PAGE ? " of these fills" : ""}<//><${BatchesTable} batches=${page.batches} />`;
}

/** A whole number from the address, or `fallback`. */
function wholeNumber(text, fallback) {
  return /^\d{1,9}$/.test(text ?? "") ? Number(text) : fallback;
}

/**
 * The page of a newest-first list (orders, settlement batches), in the address too (offset,
 * upto), so it can be linked and Back returns to it. Past the first page the list is held at
 * the entries there were when the user paged away (upto), so pages do not shift while the
 * run goes on; the first page is live.
 */
function useHeldPage(size, filter = {}) {
  const initial = routeQuery();
  const [page, setPage] = useState(() => {
    const offset = wholeNumber(initial.get("offset"), 0);
    return { offset, upto: offset > 0 ? wholeNumber(initial.get("upto"), null) : null };
  });
  const userMove = useRef(false);
  // The list's filter (its keys with a value) goes into the address before the page.
  const filterQuery = new URLSearchParams(Object.entries(filter).filter(([, v]) => v)).toString();
  useEffect(() => {
    const params = new URLSearchParams(filterQuery);
    if (page.offset > 0) params.set("offset", String(page.offset));
    if (page.offset > 0 && page.upto !== null) params.set("upto", String(page.upto));
    setRouteQuery(params, userMove.current);
    userMove.current = false;
  }, [page.offset, page.upto, filterQuery]);
  /** A new filter: back to the live first page, as a history entry of its own. */
  const restart = () => {
    userMove.current = true;
    setPage({ offset: 0, upto: null });
  };
  /** Go to `offset`; leaving the live first page holds the list at the `total` it showed. */
  const mover = (total) => (offset) => {
    userMove.current = true;
    setPage(offset > 0 ? { offset, upto: page.upto ?? total } : { offset: 0, upto: null });
  };
  /**
   * Against a loaded `total`: a page opened without `upto` holds at the list it found; an
   * `upto` past the list's end (a restore shrank it, or the address asked for more) comes down
   * to it, so the page stays held as the run goes on; a page past the end moves to the last.
   */
  const fit = (total, placed = total) => {
    if (page.offset === 0) return;
    const upto = REPORT ? page.upto : Math.min(page.upto ?? placed, placed);
    const offset = Math.min(page.offset, Math.max(0, Math.floor((total - 1) / size) * size));
    if (offset !== page.offset || upto !== page.upto) setPage(offset > 0 ? { offset, upto } : { offset: 0, upto: null });
  };
  const query = `offset=${page.offset}${page.upto !== null && !REPORT ? `&upto=${page.upto}` : ""}${filterQuery ? `&${filterQuery}` : ""}`;
  return { offset: page.offset, held: page.offset > 0 && !REPORT, query, mover, fit, restart };
}

/** Run `fit` of a held page whenever the list's loaded total (or the page) changes. */
function useFitted(paged, total, placed = total) {
  useEffect(() => {
    if (total !== null) paged.fit(total, placed ?? total);
  }, [total, placed, paged.query]);
}

const ORDERS_PAGE = 50;

/** The rows of a page: the server pages a live view; a report holds its captured list whole and pages it here. */
function pageOf(list, total, offset, size) {
  return REPORT ? { rows: list.slice(offset, offset + size), total: list.length } : { rows: list, total };
}

const ORDER_STATUSES = ["pending", "matched", "settled", "failed", "cancelled"];

function Home({ tick }) {
  const initial = routeQuery();
  const [filter, setFilter] = useState(() => ({ status: initial.get("status") ?? "", symbol: initial.get("symbol") ?? "" }));
  const paged = useHeldPage(ORDERS_PAGE, filter);
  const { offset, held, query, mover, restart } = paged;
  const run = useData("/run", tick);
  const markets = run.data?.markets ?? [];
  // What the server would refuse (sim/http/run-views.ts orderFilter) is refused here, in its
  // words: a report cannot ask it, and a live page need not ask it again every second.
  const refused =
    filter.status && !ORDER_STATUSES.includes(filter.status)
      ? `status must be one of ${ORDER_STATUSES.join(", ")}`
      : filter.symbol && run.data && !markets.includes(filter.symbol)
        ? `symbol: no market ${JSON.stringify(filter.symbol)} (one of ${markets.join(", ")})`
        : null;
  const state = useData(refused ? "/run" : `/orders?limit=${ORDERS_PAGE}&${query}`, tick);
  // A report holds the newest orders unfiltered: filter them here as the server would.
  const matches = (o) => (!filter.status || o.status === filter.status) && (!filter.symbol || o.symbol === filter.symbol);
  const listed = (d) => (REPORT ? d.orders.filter(matches) : d.orders);
  const total = !refused && state.data?.orders ? pageOf(listed(state.data), state.data.total, offset, ORDERS_PAGE).total : null;
  useFitted(paged, total, state.data?.placed ?? null);
  // A new filter's count is announced once it loads (focus stays on the select), as the request list's.
  const filterMoved = useRef(false);
  const [matchNote, setMatchNote] = useState("");
  useEffect(() => {
    if (!filterMoved.current || total === null) return;
    filterMoved.current = false;
    setMatchNote(`${counted(total, "order")} match`);
  }, [state.data]);
  const choose = (k) => (e) => {
    filterMoved.current = true;
    setFilter((f) => ({ ...f, [k]: e.target.value }));
    restart();
  };
  const filtered = Boolean(filter.status || filter.symbol);
  // A report keeps the newest orders only: a count there is of those.
  const kept = (d) => (REPORT && d.total > d.orders.length ? ` (this report keeps the newest ${d.orders.length} of the run's ${d.total} orders)` : "");
  return html`<section class="panel"><h2>Recent orders</h2>
    <div class="filters">
      <label class="field">status <select aria-label="filter by status" value=${filter.status} onChange=${choose("status")}><option value="">any</option>${(filter.status && !ORDER_STATUSES.includes(filter.status) ? [...ORDER_STATUSES, filter.status] : ORDER_STATUSES).map((x) => html`<option value=${x}>${x}</option>`)}</select></label>
      <label class="field">market <select aria-label="filter by market" value=${filter.symbol} onChange=${choose("symbol")}><option value="">any</option>${(filter.symbol && !markets.includes(filter.symbol) ? [...markets, filter.symbol] : markets).map((x) => html`<option value=${x}>${x}</option>`)}</select></label>
      <span class="visually-hidden" role="status" data-testid="orders-filter-note">${matchNote}</span>
    </div>
    <${Loading} state=${refused ? { data: null, error: refused } : state}>${(d) => {
      const page = pageOf(listed(d), d.total, offset, ORDERS_PAGE);
      return html`${page.rows.length || !filtered ? html`<${OrdersTable} orders=${page.rows} />` : html`<p class="muted">No orders match this filter.</p>`}
        ${held ? null : html`<p class="muted">${filtered ? `${counted(page.total, "order")} match` : `${counted(d.total, "order")} in all`}${kept(d)}</p>`}
        ${held && filter.status ? html`<p class="muted">This page holds the orders placed up to then; the status filter reads their statuses now, so an order whose status changed leaves or joins it.</p>` : null}
        <${Pager} offset=${offset} size=${ORDERS_PAGE} total=${page.total} moveTo=${mover(d.placed ?? page.total)} held=${held} heldOf=${filtered && d.placed !== undefined ? `the ${page.total} matching among the first ${d.placed} orders placed` : undefined} />`;
    }}<//>
  </section>`;
}

function FillsTable({ fills, compact }) {
  if (!fills.length) return html`<p class="muted">No fills.</p>`;
  return html`<table class="fills">
    <thead><tr><th>Fill</th><th>Maker</th><th>Taker</th>${compact ? html`<th>When</th>` : html`<th>Price</th><th>Quantity</th>`}<th>Status</th><th>Batch</th><th>Tx hash</th><th>Revert reason</th></tr></thead>
    <tbody>${fills.map(
      (f) => html`<tr key=${f.fill_id} data-fill-id=${f.fill_id}>
        <td>${f.fill_id}</td>
        <td><${Link} to=${`/orders/${f.maker_order_id}`} title=${f.maker_order_id}><code>${short(f.maker_order_id)}</code><//></td>
        <td><${Link} to=${`/orders/${f.taker_order_id}`} title=${f.taker_order_id}><code>${short(f.taker_order_id)}</code><//></td>
        ${compact ? html`<td>${f.during_request ? "during the request" : "later"}</td>` : html`<td class="num">${f.price}</td><td class="num">${f.quantity}</td>`}
        <td><${Status} s=${f.status} /></td><td>${f.settlement_id ?? "—"}</td>
        <td><${Hash} v=${f.tx_hash} /></td><td>${f.revert_reason ?? ""}</td>
      </tr>`,
    )}</tbody>
  </table>`;
}

function BatchesTable({ batches, markets }) {
  if (!batches.length) return html`<p class="muted">No settlement batches.</p>`;
  return html`<table class="batches">
    <thead><tr><th>Batch</th><th>Kind</th>${markets ? html`<th>Markets</th>` : null}<th>Status</th><th>Tx hash</th><th>Block</th><th>Fill ids</th><th>Revert reasons</th></tr></thead>
    <tbody>${batches.map(
      (b) => html`<tr key=${b.settlement_id}>
        <td>${b.settlement_id}</td><td>${b.kind}</td>${markets ? html`<td>${(b.symbols ?? []).join(", ")}</td>` : null}<td><${Status} s=${b.status} />${(b.revert_reasons ?? []).length ? html` <span class="bad">${b.status === "failed" ? "(the transaction reverted)" : "(mined; some of its fills reverted)"}</span>` : null}</td>
        <td><${Hash} v=${b.tx_hash} /></td><td>${b.block ?? "—"}</td><td>${b.fill_ids.join(", ")}</td>
        <td>${(b.revert_reasons ?? []).join(", ")}</td>
      </tr>`,
    )}</tbody>
  </table>`;
}

function OrderView({ id, tick }) {
  const paged = useFillPage(`/orders/${encodeURIComponent(id)}`);
  const state = useData(paged.path, tick);
  return html`<section class="panel"><h2>Order <code data-testid="order-id">${id}</code></h2>
    <${Loading} state=${state}>${(d) => html`
      <dl class="facts">
        <div><dt>Status</dt><dd><${Status} s=${d.order.status} /></dd></div>
        <div><dt>Owner</dt><dd><${Wallet} address=${d.order.owner_address} full=${true} /></dd></div>
        <div><dt>Market</dt><dd>${d.order.symbol} ${d.order.side} (${d.order.order_type})</dd></div>
        <div><dt>Price × amount</dt><dd>${d.order.price} × ${d.order.amount}</dd></div>
        <div><dt>Filled</dt><dd>${d.order.filled_base_amount} ${d.order.base_symbol} for ${d.order.filled_quote_amount} ${d.order.quote_symbol}${d.order.status === "pending" ? ` (remaining ${d.order.remaining_amount})` : ""}</dd></div>
        ${d.frozen && d.frozen.amount !== "0" ? html`<div data-testid="frozen"><dt>Holds frozen</dt><dd><${Amount} raw=${d.frozen.amount} decimals=${d.frozen.decimals} /> ${d.frozen.symbol ?? d.frozen.token} <span class="muted">(of its owner's vault, until it fills, settles or is cancelled)</span></dd></div>` : null}
        ${d.swap_recipient ? html`<div data-testid="swap-recipient"><dt>Output to</dt><dd>${d.swap_recipient === ZERO_ADDRESS ? "the owner's vault" : d.swap_recipient === d.order.owner_address.toLowerCase() ? "the owner's wallet" : html`another wallet: <${Wallet} address=${d.swap_recipient} full=${true} />`}</dd></div>` : null}
        <div><dt>Created / expires</dt><dd>${d.order.created_at} / ${expiresIso(d.order.expiration)} <span class="muted">(${d.order.expiration})</span></dd></div>
        ${d.order.error_code
          ? html`<div><dt>${d.order.status === "pending" ? "Last reverted fill" : "Error"}</dt><dd>${d.order.error} <span class="muted">(the order's error_code: <code>${d.order.error_code}</code>)</span>${d.order.status === "pending" ? html` <span class="muted">(its quantity went back to the book; the order is still live)</span>` : null}</dd></div>`
          : null}
      </dl>
      <${PagedFills} paged=${paged} fills=${d.fills} total=${d.fills_total} batches=${d.settlement_batches} heading="h3" />
      <h3>Requests</h3>
      ${d.requests.length
        ? html`<ul>${d.requests.map((r) => html`<li key=${r.id}><${Link} to=${`/requests/${r.id}`}>${r.id}<//> ${r.method} ${r.path} → ${r.status} at ${r.at_iso}</li>`)}</ul>`
        : html`<p class="muted">No journaled request created or cancelled it (seeded liquidity, or the journal was cleared).</p>`}
      <h3>Settlement summary and economics</h3>
      <div class="two"><${Json} v=${d.order.settlement_summary} label="settlement summary" /><${Json} v=${d.order.settlement_economics} label="settlement economics" /></div>`}<//>
  </section>`;
}

const BATCHES_PAGE = 200;

function BatchesView({ tick }) {
  const paged = useHeldPage(BATCHES_PAGE);
  const { offset, held, query, mover } = paged;
  const state = useData(`/batches?limit=${BATCHES_PAGE}&${query}`, tick);
  useFitted(paged, state.data ? pageOf(state.data.batches, state.data.total, offset, BATCHES_PAGE).total : null);
  return html`<section class="panel"><h2>Settlement batches</h2>
    <${Loading} state=${state}>${(d) => {
      const page = pageOf(d.batches, d.total, offset, BATCHES_PAGE);
      return html`<${BatchesTable} batches=${page.rows} markets=${true} />${held ? null : html`<p class="muted">${counted(d.total, "batch", "batches")} in all</p>`}
        <${Pager} offset=${offset} size=${BATCHES_PAGE} total=${page.total} moveTo=${mover(page.total)} held=${held} />`;
    }}<//>
  </section>`;
}

/** Cumulative depth per price: bids from the best bid down, asks from the best ask up. */
function depthSeries(m) {
  const cum = (levels) => {
    let run = 0;
    return levels.map((l) => [Number(l.price), (run += Number(l.quantity))]);
  };
  const bids = cum(m.bids);
  const asks = cum(m.asks);
  const xs = [...new Set([...bids, ...asks].map((p) => p[0]))].sort((a, b) => a - b);
  const at = (pts, x) => pts.find((p) => p[0] === x)?.[1] ?? null;
  return [xs, xs.map((x) => at(bids, x)), xs.map((x) => at(asks, x))];
}

/** What the depth chart shows, in words. */
function depthSummary(m) {
  const side = (name, levels) => (levels.length ? `${counted(levels.length, "level")} of ${name}, best ${levels[0].price}` : `no ${name}`);
  return `${m.symbol} depth: ${side("bids", m.bids)}; ${side("asks", m.asks)}`;
}

/** A chart's number as the tables write it (uPlot's default formats in the browser's locale: "1,083" for 1.083 in German). */
const plainNumber = (v) => (v == null ? "—" : String(Number(v.toPrecision(10))));
const plainTicks = (_u, vals) => vals.map((v) => String(Number(v.toPrecision(6))));

function MarketCard({ m }) {
  const data = depthSeries(m);
  const opts = {
    title: `${m.symbol} depth`,
    height: 200,
    scales: { x: { time: false }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.05 : 1] } },
    axes: [{ label: `price (${m.quote})`, values: plainTicks }, { label: `cumulative ${m.base}`, size: 60, values: plainTicks }],
    series: [
      { label: "price", value: (_u, v) => plainNumber(v) },
      { label: "bids", stroke: "#1a7f37", fill: "rgba(26,127,55,0.15)", paths: uPlot.paths.stepped({ align: -1 }), spanGaps: false, value: (_u, v) => plainNumber(v) },
      { label: "asks", stroke: "#cf222e", fill: "rgba(207,34,46,0.15)", paths: uPlot.paths.stepped({ align: 1 }), spanGaps: false, value: (_u, v) => plainNumber(v) },
    ],
  };
  return html`<div class="market" data-symbol=${m.symbol}>
    <h3>${m.symbol}</h3>
    ${data[0].length ? html`<${Chart} opts=${opts} data=${data} summary=${depthSummary(m)} />` : html`<p class="muted">Empty book.</p>`}
    <div class="two">
      <table class="ladder"><thead><tr><th>Bid qty</th><th>Bid</th><th>Ask</th><th>Ask qty</th></tr></thead>
        <tbody>${Array.from({ length: Math.min(10, Math.max(m.bids.length, m.asks.length)) }, (_, i) => html`<tr>
          <td class="num">${m.bids[i]?.quantity ?? ""}</td><td class="num bid">${m.bids[i]?.price ?? ""}</td>
          <td class="num ask">${m.asks[i]?.price ?? ""}</td><td class="num">${m.asks[i]?.quantity ?? ""}</td></tr>`)}</tbody></table>
      <div><h4>Recent trades</h4>${m.recent_trades.length
        ? html`<table><thead><tr><th>Fill</th><th>Price</th><th>Qty</th><th>Status</th></tr></thead><tbody>${m.recent_trades.map(
            (t) => html`<tr key=${t.fill_id}><td>${t.fill_id}</td><td class="num">${t.price}</td><td class="num">${t.quantity}</td><td><${Status} s=${t.status} /></td></tr>`,
          )}</tbody></table>`
        : html`<p class="muted">No trades.</p>`}</div>
    </div>
  </div>`;
}

function MarketsView({ tick }) {
  const state = useData("/markets", tick);
  return html`<section class="panel"><h2>Markets</h2>
    <${Loading} state=${state}>${(d) => d.markets.map((m) => html`<${MarketCard} key=${m.symbol} m=${m} />`)}<//>
  </section>`;
}

const REQUEST_FILTERS = ["method", "path", "status", "owner"];

function RequestsView({ tick }) {
  // The filter and the page live in the address too, so a filtered list can be linked and Back returns to it.
  const initial = routeQuery();
  const [filter, setFilter] = useState(() => Object.fromEntries(REQUEST_FILTERS.map((k) => [k, initial.get(k) ?? ""])));
  // What is typed into the boxes, kept apart from the applied filter so the once-a-second poll does not wipe it.
  const [draft, setDraft] = useState(filter);
  // Newest first, a page at a time; a new filter starts again at the newest. Past the first
  // page the list is held at the requests received before `before` (a request id), so pages
  // do not shift while new requests arrive; the first page is live.
  const [page, setPage] = useState(() => {
    const offset = Math.max(0, Math.floor(Number(initial.get("offset")) || 0));
    const before = initial.get("before");
    return { offset, before: offset > 0 && /^r[1-9][0-9]*$/.test(before ?? "") ? before : null };
  });
  const { offset, before } = page;
  const setOffset = (next, anchor = before) => setPage(next > 0 ? { offset: next, before: anchor } : { offset: 0, before: null });
  // A page or filter the user moved to is a history entry of its own (Back returns to the
  // one before); the view's own corrections (the last-page clamp) replace the address.
  const userMove = useRef(false);
  const filterMoved = useRef(false);
  const [matchNote, setMatchNote] = useState("");
  const moveTo = (next, anchor) => {
    const to = next > 0 ? { offset: next, before: anchor === undefined ? before : anchor } : { offset: 0, before: null };
    if (to.offset === offset && to.before === before) return;
    userMove.current = true;
    setPage(to);
  };
  const q = new URLSearchParams(Object.entries(filter).filter(([, v]) => v)).toString();
  useEffect(() => {
    const params = new URLSearchParams(q);
    if (offset > 0) params.set("offset", String(offset));
    if (before) params.set("before", before);
    setRouteQuery(params, userMove.current);
    userMove.current = false;
  }, [q, offset, before]);
  const held = REPORT || !before ? "" : `&before=${before}`;
  // The list shows no bodies: leave them out of its once-a-second poll.
  const state = useData(`/requests?limit=${REQUESTS_PAGE}&offset=${offset}${held}&bodies=0&fills_limit=0${q ? `&${q}` : ""}`, tick);
  // A visible label beside each box (a placeholder goes as soon as one types), as the order list's filters have.
  const field = (k, placeholder) =>
    html`<label class="field">${k} <input aria-label=${`filter by ${k}`} title=${`filter by ${placeholder}`} placeholder=${placeholder} value=${draft[k]} onInput=${(e) => {
      const typed = e.target.value;
      setDraft((d) => ({ ...d, [k]: typed }));
    }} onChange=${(e) => {
      // From the latest filter, not this render's: two fields changed before a re-render both count.
      const value = e.target.value.trim();
      if (value === filter[k]) return;
      userMove.current = true;
      filterMoved.current = true;
      setFilter((latest) => ({ ...latest, [k]: value }));
      setPage({ offset: 0, before: null });
    }} /></label>`;
  let rows = state.data?.entries ?? [];
  // A report holds the unfiltered journal: filter and page it here the way the server would.
  if (REPORT) rows = rows.filter((e) => (!filter.method || e.method === filter.method.toUpperCase()) && (!filter.path || pathMatches(filter.path, e.path)) && (!filter.status || statusMatches(filter.status, e.status)) && (!filter.owner || e.wallet === filter.owner.toLowerCase()));
  // The report refuses what the server refuses, with the server's words (sim/http/journal-control.ts).
  const refused = REPORT ? reportFilterError(filter) : null;
  if (refused) rows = [];
  const total = REPORT ? rows.length : state.data?.total;
  if (REPORT) rows = rows.slice(offset, offset + REQUESTS_PAGE);
  // The journal shrank under this page (cleared, restored, capped): go to its last page.
  const lastPage = total ? Math.floor((total - 1) / REQUESTS_PAGE) * REQUESTS_PAGE : 0;
  useEffect(() => {
    // Only against loaded data: while a page loads there are no rows yet (a report counts them itself).
    if (state.data && total !== undefined && offset > lastPage) setOffset(lastPage);
  }, [state.data, total, offset, lastPage]);
  const older = total !== undefined && offset + REQUESTS_PAGE < total;
  // A new filter's result is announced once it loads (focus stays in the box); not every poll's count.
  useEffect(() => {
    if (!filterMoved.current || !state.data || total === undefined) return;
    filterMoved.current = false;
    setMatchNote(total === 1 ? "1 entry matches" : `${total} entries match`);
  }, [state.data]);
  // A report keeps the newest entries only: say how many of the run's it left out.
  const left = REPORT && state.data?.total > (state.data?.entries.length ?? 0) ? state.data.total - state.data.entries.length : 0;
  return html`<section class="panel"><h2>Request journal</h2>
    <div class="filters">${field("method", "method")} ${field("path", "path /api/v1/… (* wildcard)")} ${field("status", "status (404, 4xx, 0)")} ${field("owner", "owner 0x…")}<span class="visually-hidden" role="status" data-testid="filter-note">${matchNote}</span></div>
    <${Loading} state=${refused ? { data: null, error: refused } : state}>${() => html`<table class="requests">
      <thead><tr><th>Id</th><th>Virtual time</th><th>Method</th><th>Path</th><th>Status</th><th>Wallet</th><th>ms</th><th>Caused</th></tr></thead>
      <tbody>${rows.map(
        (e) => html`<tr key=${e.id}>
          <td><${Link} to=${`/requests/${e.id}`}>${e.id}<//></td><td class="time">${e.at_iso}</td><td>${e.method}</td><td><code class="path" title=${e.path}>${e.path}</code></td>
          <td><span class=${statusClass(e.status)}>${e.status}</span>${e.fault ? html` <span class="bad" title="route fault">${e.fault.kind === String(e.status) ? "(route fault)" : e.fault.kind}${e.fault.after_commit ? " after commit" : ""}</span>` : null}</td><td><${Wallet} address=${e.wallet} /></td>
          <td class="num">${e.duration_ms}</td><td>${summary(e.links)}${e.rejection ? html` <span class="bad">${e.rejection.code ?? ""} ${e.rejection.fields.join(", ")}</span>` : null}</td>
        </tr>`,
      )}</tbody></table>
      <div class="controls">
        <span class="muted">${total === 1 ? "1 entry matches" : `${total} entries match`}${total > REQUESTS_PAGE ? `; ${Math.min(offset + 1, total)}–${Math.min(offset + REQUESTS_PAGE, total)} shown` : ""}${left ? ` (this report keeps the newest ${state.data.entries.length} of the run's ${state.data.total} requests)` : ""}${before && !REPORT ? `; up to r${Number(before.slice(1)) - 1}, newer requests are on the first page` : ""}</span>
        ${offset > 0 ? html`<button onClick=${() => movePage(moveTo, Math.max(0, Math.min(offset, lastPage + REQUESTS_PAGE) - REQUESTS_PAGE))}>Newer</button>` : null}
        ${older ? html`<button onClick=${() => (before || REPORT ? movePage(moveTo, offset + REQUESTS_PAGE) : movePage(moveTo, REQUESTS_PAGE, heldAt(rows)))}>Older</button>` : null}
      </div>`}<//>
  </section>`;
}

/** A journaled query as the client sent it: a key given twice shows twice (`a=1&a=2`), values decoded. */
function queryText(query) {
  return Object.entries(query)
    .flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => `${k}=${x}`))
    .join("&");
}

/**
 * Paging away from a live page: hold the list at the requests received up to the newest one
 * on it (the next page is then one page on). The list is in the order requests finished, so
 * the highest id on the page, not its first row: every row shown stays in the held list.
 */
function heldAt(rows) {
  return rows.length === 0 ? null : `r${Math.max(...rows.map((e) => Number(e.id.slice(1)))) + 1}`;
}

/** What the server's journal filter says of a filter it cannot read, or null. */
function reportFilterError(f) {
  const issues = [];
  if (f.method && !/^[A-Za-z]{1,10}$/.test(f.method)) issues.push("method: Invalid string: must match pattern /^[A-Za-z]{1,10}$/");
  if (f.status && !/^([1-5]\d\d|[1-5]xx|0)$/i.test(f.status)) issues.push("status: a status code (404, or 0 for no answer) or class (4xx)");
  if (f.owner && !/^0x[0-9a-fA-F]{40}$/.test(f.owner)) issues.push("owner: a 0x address");
  return issues.length ? issues.join("; ") : null;
}

/** The journal's path filter (sim/http/journal.ts globMatches): exact, or * for any run of characters; no regex (it backtracks). */
function pathMatches(pattern, path) {
  if (!pattern.includes("*")) return path === pattern;
  const parts = pattern.split("*");
  const first = parts[0];
  const last = parts[parts.length - 1];
  if (path.length < first.length + last.length || !path.startsWith(first) || !path.endsWith(last)) return false;
  const end = path.length - last.length;
  let at = first.length;
  for (const piece of parts.slice(1, -1)) {
    const found = path.indexOf(piece, at);
    if (found < 0 || found + piece.length > end) return false;
    at = found + piece.length;
  }
  return true;
}

/** A journal status's colour: an error, or 0 (a reset or timed-out request got no answer). */
function statusClass(status) {
  return status >= 400 || status === 0 ? "bad" : "ok";
}

/** The journal's status filter: a code (404) or a class (4xx). */
function statusMatches(filter, status) {
  const cls = /^([1-5])xx$/i.exec(filter);
  return cls ? Math.floor(status / 100) === Number(cls[1]) : String(status) === filter;
}

function summary(l) {
  const parts = [];
  if (l.orders_created.length) parts.push(`${l.orders_created.length} order(s)`);
  if (l.orders_cancelled.length) parts.push(`${l.orders_cancelled.length} cancel(s)`);
  // The totals: the list asks for no fill rows (fills_limit=0), a request's page for one page of them.
  const fills = l.fills_total ?? l.fills.length;
  const batches = l.settlement_batches_total ?? l.settlement_batches.length;
  if (fills) parts.push(`${fills} fill(s)`);
  if (batches) parts.push(`${batches} batch(es)`);
  if (l.quotes_consumed.length) parts.push(`${l.quotes_consumed.length} quote(s)`);
  const moves = l.vault_moves ?? [];
  const deposits = moves.filter((m) => m.kind === "deposit").length;
  if (deposits) parts.push(`${deposits} deposit(s)`);
  if (moves.length > deposits) parts.push(`${moves.length - deposits} withdrawal(s)`);
  return parts.join(", ");
}

/** Whether a rejection says anything (a section with nothing in it reads like a missing answer). */
function hasReason(r) {
  return Boolean(r && (r.code || r.detail || r.fields.length || r.signature));
}

/**
 * The code the client read, when the answer carried one other than the journal's (the
 * simulator names rejections more finely than the spec's codes: README, Error codes on the wire).
 */
function wireCodeNote(e) {
  let body;
  try {
    body = JSON.parse(e.response_body?.text ?? "");
  } catch {
    return null;
  }
  const code = body?.detail?.error_code ?? body?.error_code ?? body?.detail?.code ?? null;
  return typeof code === "string" && code !== e.rejection.code ? html` <span class="muted" data-testid="wire-code">(the client read <code>${code}</code>)</span>` : null;
}

function RequestView({ id, tick }) {
  const paged = useFillPage(`/requests/${encodeURIComponent(id)}`);
  const state = useData(paged.path, tick);
  return html`<section class="panel"><h2>Request <code>${id}</code></h2>
    <${Loading} state=${state}>${(e) => html`
      <dl class="facts">
        <div><dt>Request</dt><dd><strong>${e.method} ${e.path}</strong> ${Object.keys(e.query).length ? html`<code>${queryText(e.query)}</code>` : null}</dd></div>
        <div><dt>Status</dt><dd><span class=${statusClass(e.status)}>${e.status}</span>${e.status === 0 ? html` <span class="muted">(no answer reached the client)</span>` : null}</dd></div>
        ${e.fault ? html`<div data-testid="fault"><dt>Route fault</dt><dd><strong class="bad">${e.fault.kind}</strong> ${e.fault.after_commit
          ? html`after the request took effect: the client lost its ${e.fault.committed_status ?? ""} answer; what it caused (below) stands`
          : html`before any effect: nothing was committed`}</dd></div>` : null}
        <div><dt>Wallet</dt><dd><${Wallet} address=${e.wallet} full=${true} /></dd></div>
        <div><dt>Virtual / wall time</dt><dd>${e.at_iso} / ${e.wall_time} (${e.duration_ms} ms)</dd></div>
        <div><dt>Engine events</dt><dd>${e.events.to > e.events.from + 1 ? `#${e.events.from + 1}–#${e.events.to}` : e.events.to > e.events.from ? `#${e.events.to}` : "none"}</dd></div>
      </dl>
      ${hasReason(e.rejection) ? html`<h3>Why it was rejected</h3><div class="rejection"><p><strong>${e.rejection.code ?? ""}</strong> ${e.rejection.detail ?? ""}${wireCodeNote(e)}</p>
        ${e.rejection.fields.length ? html`<p>Fields: ${e.rejection.fields.map((f) => html`<code>${f}</code> `)}</p>` : null}
        ${e.rejection.signature ? html`<p>Expected signer <code>${e.rejection.signature.expected_signer}</code>, the signature recovers to <code>${e.rejection.signature.recovered_signer ?? "nobody"}</code>.</p><h4>Typed data the server checked</h4><${Json} v=${e.rejection.signature.typed_data} label="typed data the server checked" />` : null}</div>` : null}
      <h3>What it caused</h3>
      ${summary(e.links) || e.links.vl_batches.length ? null : html`<p class="muted">Nothing in the engine: no order, cancel, fill, quote, deposit or withdrawal of this wallet's.</p>`}
      <ul class="links">
        ${e.links.orders_created.map((o) => html`<li>created order <${Link} to=${`/orders/${o.order_id}`}><code>${o.order_id}</code><//> <${Status} s=${o.status} /></li>`)}
        ${e.links.orders_cancelled.map((o) => html`<li>cancelled order <${Link} to=${`/orders/${o.order_id}`}><code>${o.order_id}</code><//> <${Status} s=${o.status} /></li>`)}
        ${e.links.quotes_consumed.map((q) => html`<li>consumed quote <code>${q}</code></li>`)}
        ${e.links.vl_batches.map((b) => html`<li>VL batch <code>${b}</code></li>`)}
        ${(e.links.vault_moves ?? []).map((m) => html`<li data-testid="vault-move">${m.kind === "deposit" ? "vault deposit credited" : "vault withdrawal debited"}: <${Amount} raw=${m.amount} decimals=${m.decimals} /> ${m.symbol ?? m.token}</li>`)}
        ${e.links.revert_reasons.map((r) => html`<li class="bad">reverted on chain: <code>${r}</code></li>`)}
      </ul>
      ${(e.links.fills_total ?? e.links.fills.length) ? html`<${PagedFills} paged=${paged} fills=${e.links.fills} total=${e.links.fills_total ?? e.links.fills.length} batches=${e.links.settlement_batches} compact=${true} heading="h4" />` : null}
      <div class="two"><div><h3>Request body</h3><${Body} copy=${e.request_body} label="request body" /></div><div><h3>Response body</h3><${Body} copy=${e.response_body} label="response body" /></div></div>`}<//>
  </section>`;
}

const TIMELINE_SERIES = [
  ["order_placed", "orders", "#0969da"],
  ["fill", "fills", "#8250df"],
  ["settlement_broadcast", "batches sent", "#bf8700"],
  ["settlement_receipt", "receipts", "#1a7f37"],
];

/** uPlot's time axis and legend in UTC, as every other time on the page (not the browser's zone). */
const utcDate = (ts) => uPlot.tzDate(new Date(ts * 1000), "Etc/UTC");
/** A time axis tick (Unix seconds) as ISO UTC: "12:34:56", or "2026-01-01 12:34" when the chart spans days. */
const isoTick = (t, days) => {
  const iso = new Date(t * 1000).toISOString();
  return days ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : iso.slice(11, 19);
};
const TIMELINE_WINDOW = 1000;
const TIMELINE_ROWS = 300;
/**
 * The timeline's window: the chart charts up to TIMELINE_WINDOW events ending at `upto`
 * (a seq; the newest when not held), and the table lists the newest TIMELINE_ROWS of them,
 * or of one event type up to `upto` (read from the whole log, not the chart's window).
 * Older holds the view further back, in the address like a list page's.
 */
function TimelineView({ tick }) {
  const initial = routeQuery();
  const [view, setView] = useState(() => ({ type: initial.get("type") ?? "", upto: wholeNumber(initial.get("upto"), null) }));
  const userMove = useRef(false);
  useEffect(() => {
    const params = new URLSearchParams();
    if (view.type) params.set("type", view.type);
    if (view.upto !== null) params.set("upto", String(view.upto));
    setRouteQuery(params, userMove.current);
    userMove.current = false;
  }, [view.type, view.upto]);
  const move = (next) => {
    userMove.current = true;
    setView((v) => ({ ...v, ...next }));
  };
  const head = useData("/run", tick);
  const total = head.data?.counts.events ?? null;
  // A held position past the log's end (a restore shrank it, or the address asked for more)
  // comes down to the end and stays held there, in the address too, as a list page's does.
  useEffect(() => {
    if (!REPORT && total !== null && view.upto !== null && view.upto > total) setView((v) => ({ ...v, upto: total }));
  }, [total, view.upto]);
  // The server's list of event types (a report's capture of /run holds it too).
  const listedTypes = head.data?.event_types ?? [];
  const types = view.type && !listedTypes.includes(view.type) ? [...listedTypes, view.type] : listedTypes;
  // A held view past the log's end (a restore shrank it) comes down to the end, still held.
  const end = total === null ? null : view.upto === null ? total : Math.min(view.upto, total);
  const chartPath = end === null ? "/run" : `/events?before=${end + 1}&limit=${TIMELINE_WINDOW}`;
  // A window of the log ending at a given event does not change until the log is replaced (a
  // restore, a pool id made anew): read when it moves or log_epoch does, not every second.
  const epoch = head.data?.log_epoch ?? "";
  const loaded = useData(chartPath, `${tick}/${epoch}`, chartPath === "/run");
  // A type the server does not list is said so below, not asked for every second.
  const knownType = !head.data?.event_types || head.data.event_types.includes(view.type);
  const typedPath = end === null || !view.type || REPORT || !knownType ? "/run" : `/events?type=${view.type}&before=${end + 1}&limit=${TIMELINE_ROWS}`;
  // "/run" stands in while there is nothing to ask: the panel's read of it, not one more.
  const typed = useData(typedPath, `${tick}/${epoch}`, typedPath === "/run");
  // New events move the live window (another path): keep showing the last one meanwhile, so
  // the page neither blanks nor jumps to the top at every event.
  const last = useRef(null);
  if (loaded.data?.events) last.current = loaded;
  const state = loaded.data?.events || loaded.error || !last.current ? loaded : last.current;
  // The same for the rows of one type (kept only while the type is the same).
  const lastTyped = useRef(null);
  if (typed.data?.events) lastTyped.current = { type: view.type, data: typed.data };
  const typedData = typed.data?.events ? typed.data : lastTyped.current?.type === view.type ? lastTyped.current.data : null;
  const held = view.upto !== null;
  return html`<section class="panel"><h2>Timeline (virtual clock, UTC)</h2>
    <div class="filters">
      <label class="field">type <select aria-label="list events of one type" value=${view.type} onChange=${(e) => move({ type: e.target.value })}><option value="">any</option>${types.map((t) => html`<option value=${t}>${t}</option>`)}</select></label>
    </div>
    <${Loading} state=${state}>${(d) => {
      // A report holds the run's newest events: its window and its filter are cut from them here.
      const all = d.events ?? [];
      const events = REPORT ? all.filter((ev) => end === null || ev.seq <= end).slice(-TIMELINE_WINDOW) : all;
      if (!events.length) return html`<p class="muted">${held ? (REPORT ? `This report keeps events from #${all[0]?.seq ?? 1} on only.` : "No events up to there.") : "No events."}</p>
        ${held ? html`<div class="controls"><button onClick=${() => movePage(move, { upto: null })}>Newest</button></div>` : null}`;
      const first = events[0].seq;
      const newest = events[events.length - 1].seq;
      const windowed = first > 1;
      const xs = [];
      const ys = TIMELINE_SERIES.map(() => []);
      const counts = TIMELINE_SERIES.map(() => 0);
      for (const ev of events) {
        const k = TIMELINE_SERIES.findIndex((s) => s[0] === ev.type);
        if (k >= 0) counts[k]++;
        xs.push(ev.at / 1000);
        ys.forEach((col, i) => col.push(counts[i]));
      }
      const days = xs[xs.length - 1] - xs[0] > 86_400;
      const opts = {
        height: 240,
        tzDate: utcDate,
        // Events at one virtual instant: widen the axis to a minute either side.
        scales: { x: { auto: false, range: xs[0] === xs[xs.length - 1] ? [xs[0] - 60, xs[0] + 60] : [xs[0], xs[xs.length - 1]] } },
        // Ticks in the page's ISO UTC form (uPlot's own would read "4:11pm 11/28/26"): the time, with the date over a day.
        axes: [
          { label: "virtual time (UTC)", values: (_u, ticks) => ticks.map((t) => isoTick(t, days)), space: days ? 130 : 60 },
          { label: windowed ? `count since event #${first}` : "cumulative count", values: plainTicks },
        ],
        series: [{}, ...TIMELINE_SERIES.map(([, label, stroke]) => ({ label, stroke, paths: uPlot.paths.stepped({ align: 1 }), value: (_u, v) => plainNumber(v) }))],
      };
      // The table: this window's newest rows, or the newest of one type up to its end.
      const capturedOfType = REPORT && view.type ? all.filter((ev) => ev.type === view.type && ev.seq <= newest) : null;
      const ofType = !view.type ? null : REPORT ? capturedOfType.slice(-TIMELINE_ROWS) : (typedData?.events ?? null);
      // A type the address names that the server does not know (a typo, an old link): said, not loaded forever.
      const unknownType = view.type && head.data?.event_types && !head.data.event_types.includes(view.type);
      const rows = unknownType ? [] : view.type ? ofType : events.slice(-TIMELINE_ROWS);
      const oldestRow = rows?.length ? rows[0].seq : null;
      const reportStart = REPORT ? (all[0]?.seq ?? 1) : 1;
      // Older ones to page to: matching events below the oldest row (in a report, among those it keeps).
      const older = oldestRow !== null && (view.type ? (REPORT ? capturedOfType.length > rows.length : typedData?.next_before != null) : oldestRow > reportStart);
      const span = held ? `Events up to #${newest} (held: newer events are on the newest page)` : windowed ? `The last ${events.length} of the run's ${newest} events (from #${first})` : null;
      const pager = held || older
        ? html`<div class="controls">${held ? html`<button onClick=${() => movePage(move, { upto: null })}>Newest</button>` : null}${older ? html`<button onClick=${() => movePage(move, { upto: oldestRow - 1 })}>Older</button>` : null}</div>`
        : null;
      return html`${span ? html`<p class="muted" data-testid="timeline-window">${span}: the chart counts from #${first}; the run panel has the run's totals.</p>` : null}
        <${Chart} opts=${opts} data=${[xs, ...ys]} summary=${`Cumulative counts over ${windowed ? `the events since #${first}` : "these events"}: ${TIMELINE_SERIES.map(([, label], i) => `${label} ${counts[i]}`).join(", ")}`} />
        <p class="muted" aria-hidden="true" data-testid="timeline-counts">${TIMELINE_SERIES.map(([, label], i) => `${label} ${counts[i]}`).join(" · ")}</p>
        ${unknownType
          ? html`<p class="error" data-testid="timeline-rows-note">No event type ${JSON.stringify(view.type)}: the types are ${head.data.event_types.join(", ")}.</p>`
          : typed.error && !typedData
            ? html`<p class="error">${typed.error}</p>`
            : rows === null
          ? html`<p class="muted">Loading ${view.type} events…</p>`
          : !rows.length
            ? html`<p class="muted" data-testid="timeline-rows-note">No ${view.type} events up to #${newest}${REPORT && reportStart > 1 ? ` in this report (it keeps events from #${reportStart} on)` : ""}.</p>`
            : html`<p class="muted" data-testid="timeline-rows-note">${view.type ? `${older ? `The newest ${rows.length}` : rows.length === 1 ? "The one" : `All ${rows.length}`} ${view.type} ${rows.length === 1 ? "event" : "events"} up to #${newest}` : events.length > TIMELINE_ROWS ? `The newest ${TIMELINE_ROWS} of these events` : "These events"}, newest first${REPORT && reportStart > 1 && !older ? `; this report keeps events from #${reportStart} on` : ""}:</p>
        ${rows.length > 20 ? pager : null}
        <table class="events"><thead><tr><th>#</th><th>Virtual time</th><th>Type</th><th>Data</th></tr></thead>
        <tbody>${[...rows].reverse().map(
          (ev) => html`<tr key=${ev.seq}><td>${ev.seq}</td><td class="time">${new Date(ev.at).toISOString()}</td><td>${ev.type}${typeof ev.data?.order_id === "string" ? html` <${Link} to=${`/orders/${ev.data.order_id}`} title=${ev.data.order_id}>order ${short(ev.data.order_id, 8)}<//>` : null}</td><td class="data"><code class="data">${JSON.stringify(ev.data)}</code></td></tr>`,
        )}</tbody></table>`}
        ${pager}`;
    }}<//>
  </section>`;
}

/** Accounts the list shows (the control view's largest page): known ones first, then by address. */
const ACCOUNTS_SHOWN = 500;

/** A wallet's vault columns in words, token by token: "USDC 1000 available, 20 frozen". */
function VaultList({ vault }) {
  if (!vault.length) return html`<span class="muted">nothing in the vault</span>`;
  return html`<ul class="amounts">${vault.map(
    (v) => html`<li key=${v.token}>${v.symbol} <${Amount} raw=${v.vault_available} decimals=${v.decimals} /> available${v.vault_frozen !== "0" ? html`, <${Amount} raw=${v.vault_frozen} decimals=${v.decimals} /> frozen` : null}</li>`,
  )}</ul>`;
}

function AccountsView({ tick }) {
  const state = useData(`/accounts?limit=${ACCOUNTS_SHOWN}`, tick);
  return html`<section class="panel"><h2>Accounts</h2>
    <p class="muted">The vault as the exchange's ledger has it: available to trade, and frozen for open orders, settlements in flight and co-signed withdrawals. An account's page adds its wallet.</p>
    <${Loading} state=${state}>${(d) => html`<table class="accounts">
        <thead><tr><th>Wallet</th><th>Who</th><th>Vault</th></tr></thead>
        <tbody>${d.accounts.map(
          (a) => html`<tr key=${a.owner} data-owner=${a.owner}><td><${Wallet} address=${a.owner} full=${true} /></td><td>${a.role ?? html`<span class="muted">—</span>`}</td><td><${VaultList} vault=${a.vault} /></td></tr>`,
        )}</tbody>
      </table>
      <p class="muted">${d.accounts.length < d.total ? `The first ${d.accounts.length} of ${d.total} accounts` : counted(d.total, "account")}: the fixture's accounts, the liquidity makers and the fee recipient, then every other wallet with vault funds.</p>`}<//>
  </section>`;
}

/** Who an account is: its role, or what the exchange holds of it. */
function accountWho(d) {
  if (d.role) return d.role;
  const held = d.order_count > 0 || d.balances.some((b) => b.vault_total !== "0");
  return held ? "a wallet with orders or vault funds here" : "no orders or vault funds here";
}

function AccountView({ address, tick }) {
  const state = useData(`/accounts/${encodeURIComponent(address)}`, tick);
  return html`<section class="panel"><h2>Account <code data-testid="account-address">${address.toLowerCase()}</code></h2>
    <${Loading} state=${state}>${(d) => {
      const walletKnown = d.wallet_balance_available;
      const unsynced = d.unsynced_vault_moves ?? [];
      return html`
      <dl class="facts">
        <div><dt>Who</dt><dd>${accountWho(d)}</dd></div>
        <div><dt>Read at</dt><dd>${d.updated_at}</dd></div>
        <div><dt>Requests</dt><dd><${Link} to="/requests" query=${new URLSearchParams({ owner: d.owner_address })}>this wallet's requests<//></dd></div>
      </dl>
      ${walletKnown ? null : html`<p class="error">The chain node did not answer: the wallet and total columns are unknown.</p>`}
      ${unsynced.length
        ? html`<p class="hint" data-testid="unsynced">Mined but not in the exchange's ledger yet (the next balance read or settlement round applies it; the vault columns below do not show it yet, the total does):
            ${unsynced.map((m, i) => html`${i ? "; " : " "}${m.symbol} ${m.deposits !== "0" ? html`+<${Amount} raw=${m.deposits} decimals=${m.decimals} /> deposited` : null}${m.deposits !== "0" && m.withdrawals !== "0" ? ", " : null}${m.withdrawals !== "0" ? html`−<${Amount} raw=${m.withdrawals} decimals=${m.decimals} /> withdrawn` : null}`)}</p>`
        : null}
      <h3>Balances</h3>
      <table class="balances">
        <thead><tr><th>Token</th><th>Wallet</th><th>Vault available</th><th>Vault frozen</th><th>Total</th></tr></thead>
        <tbody>${d.balances.map(
          (b) => html`<tr key=${b.token} data-token=${b.symbol}><td>${b.symbol}</td>
            ${[walletKnown ? b.wallet_balance : null, b.vault_available, b.vault_frozen, walletKnown ? b.total : null].map((raw) => html`<td class="num">${raw === null ? html`<span class="muted" title="the chain node did not answer">—</span>` : html`<${Amount} raw=${raw} decimals=${b.decimals} />`}</td>`)}</tr>`,
        )}</tbody>
      </table>
      <h3>Orders</h3>
      <${OrdersTable} orders=${d.orders} ownerless=${true} />
      ${d.order_count > d.orders.length ? html`<p class="muted">The newest ${d.orders.length} of ${counted(d.order_count, "order")}.</p>` : null}`;
    }}<//>
  </section>`;
}

// ---------------------------------------------------------------- shell

const NAV = [
  ["/", "Orders"],
  ["/markets", "Markets"],
  ["/batches", "Settlement"],
  ["/accounts", "Accounts"],
  ["/requests", "Requests"],
  ["/timeline", "Timeline"],
];

function viewFor(route, tick, nav) {
  const [, first, rest] = /^\/([^/]*)\/?(.*)$/.exec(route) ?? [];
  switch (first) {
    // The lists are keyed by navigation too: Back to a page of one reads its page from the address again.
    case "":
      return html`<${Home} key=${nav} tick=${tick} />`;
    case "orders":
      return rest ? html`<${OrderView} id=${rest} tick=${tick} />` : html`<${Home} key=${nav} tick=${tick} />`;
    case "markets":
      return html`<${MarketsView} tick=${tick} />`;
    case "batches":
      return html`<${BatchesView} key=${nav} tick=${tick} />`;
    case "requests":
      // Keyed by navigation: a link or Back to the list reads its filter from the address again.
      return rest ? html`<${RequestView} id=${rest} tick=${tick} />` : html`<${RequestsView} key=${nav} tick=${tick} />`;
    case "timeline":
      return html`<${TimelineView} key=${nav} tick=${tick} />`;
    case "accounts":
      return rest ? html`<${AccountView} address=${rest} tick=${tick} />` : html`<${AccountsView} key=${nav} tick=${tick} />`;
    default:
      return html`<section class="panel"><h2>No view</h2><p class="error">No view at ${route}.</p></section>`;
  }
}

/** The tab title of a route: the view, and the order or request it shows. */
function viewTitle(route) {
  const [, first, rest] = /^\/([^/]*)\/?(.*)$/.exec(route) ?? [];
  if (first === "orders" && rest) return `Order ${short(rest, 8)}`;
  if (first === "requests" && rest) return `Request ${rest}`;
  if (first === "accounts" && rest) return `Account ${short(rest.toLowerCase(), 8)}`;
  if (first === "orders" || first === "") return "Orders";
  return NAV.find(([to]) => to === `/${first}`)?.[1] ?? "No view";
}

/** Focus the current view's heading (made focusable for this, not a tab stop). */
function focusView() {
  const heading = document.querySelector("#view h2");
  if (!heading) return;
  heading.setAttribute("tabindex", "-1");
  heading.focus();
}

function App() {
  const [route, setRoute] = useState(currentRoute());
  const [tick, setTick] = useState(0);
  const [nav, setNav] = useState(0);
  useEffect(() => {
    const on = () => {
      setRoute(currentRoute());
      setNav((n) => n + 1);
    };
    window.addEventListener("popstate", on);
    window.addEventListener("hashchange", on);
    window.addEventListener("fakex:navigate", on);
    return () => {
      window.removeEventListener("popstate", on);
      window.removeEventListener("hashchange", on);
      window.removeEventListener("fakex:navigate", on);
    };
  }, []);
  const bump = () => setTick((t) => t + 1);
  const section = route.split("/")[1] ?? "";
  // Each view names the tab (history and tab lists tell views apart), and a move to another
  // view puts focus on its heading, so a keyboard or screen-reader user lands on what changed.
  useEffect(() => {
    // A pool instance's id is in it too, so two tabs on two ids look different.
    document.title = `${viewTitle(route)} · ${POOL_ID ? `${POOL_ID} · ` : ""}fakex run ${REPORT ? "report" : "viewer"}`;
    if (nav > 0) focusView();
  }, [route, nav]);
  return html`<header>
      <a class="skip" href=${href(route)} onClick=${(e) => {
        e.preventDefault();
        focusView();
      }}>Skip to the view</a>
      <h1><${Link} to="/">fakex</${Link}> <span class="muted">run viewer${REPORT ? " · report" : ""}${POOL_ID ? html` · pool id <strong>${POOL_ID}</strong>` : ""}</span></h1>
      <nav aria-label="views">${NAV.map(([to, label]) => {
        const here = to === "/" ? section === "" || section === "orders" : to === `/${section}`;
        return html`<${Link} cls=${here ? "active" : ""} current=${here ? (route === to || (to === "/" && route === "/orders") ? "page" : "true") : null} to=${to}>${label}<//>`;
      })}</nav>
    </header>
    <main><${RunPanel} tick=${tick} bump=${bump} /><div id="view">${viewFor(route, tick, nav)}</div></main>`;
}

const root = document.getElementById("app");
root.textContent = ""; // the "Loading…" placeholder: render adds to what is there
render(html`<${App} />`, root);
