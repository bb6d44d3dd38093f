// The run viewer's files, served under /__fakex/ui by the fakex server itself:
//
//   /ui/assets/<file>   the viewer's own plain ES modules and CSS (the ui/ folder)
//   /ui/vendor/<file>   the UI libraries (preact, htm, uPlot) straight from their
//                       installed npm packages: no build step, no copies to go stale
//   /ui, /ui/<anything> index.html; the page's router picks the view from the path,
//                       so /__fakex/ui/orders/{id} is a link a failing test can print
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ErrorRequestHandler, Response, Router } from "express";
import { nodeRequire } from "../platform/module-format.ts";
import { PACKAGE_ROOT } from "../platform/package-paths.ts";
import { onlyGet } from "./run-views.ts";
import { controlPrefixRouter } from "./control.ts";

/** The ui/ folder at the package root (the repository, or the installed package). */
export const UI_DIR = join(PACKAGE_ROOT, "ui");

/** Vendored file → [package, path inside it]. The import map in index.html names these. */
const VENDOR: Readonly<Record<string, readonly [string, string]>> = {
  "preact.js": ["preact", "dist/preact.mjs"],
  "hooks.js": ["preact", "hooks/dist/hooks.mjs"],
  "htm.js": ["htm", "dist/htm.module.js"],
  "uplot.js": ["uplot", "dist/uPlot.esm.js"],
  "uplot.css": ["uplot", "dist/uPlot.min.css"],
};

/** An installed package's folder, found from its resolved entry (some export no package.json). */
function packageDir(name: string): string {
  let dir = dirname(nodeRequire.resolve(name));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string };
      if (pkg.name === name) return dir;
    } catch {
      // no package.json here: keep climbing
    }
    const up = dirname(dir);
    if (up === dir) throw new Error(`cannot find the folder of package ${name}`);
    dir = up;
  }
}

export function vendorPath(file: string): string | undefined {
  // Own entries only: "constructor" or "__proto__" must not find Object's.
  const v = Object.hasOwn(VENDOR, file) ? VENDOR[file] : undefined;
  return v ? join(packageDir(v[0]), v[1]) : undefined;
}

const TYPES: Record<string, string> = { ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".html": "text/html; charset=utf-8" };
const typeOf = (file: string) => TYPES[file.slice(file.lastIndexOf("."))] ?? "application/octet-stream";

/** Every file the viewer needs, by the URL path under /ui it is served at (for the report). */
export function viewerFiles(): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of readdirSync(join(UI_DIR, "assets"))) out.set(`assets/${f}`, readFileSync(join(UI_DIR, "assets", f), "utf8"));
  for (const f of Object.keys(VENDOR)) out.set(`vendor/${f}`, readFileSync(vendorPath(f)!, "utf8"));
  out.set("index.html", readFileSync(join(UI_DIR, "index.html"), "utf8"));
  return out;
}

/**
 * Send one of the viewer's files. Every path is built from a fixed list (never from the
 * URL), so dot segments are allowed: an install under .pnpm, ~/.npm/_npx or ~/.nvm has
 * them, and express's default refuses such paths with 404.
 */
function sendViewerFile(res: Response, path: string): void {
  res.sendFile(path, { dotfiles: "allow" });
}

/** `uiDir`: the viewer's folder (the package's ui/ unless a test points elsewhere). */
export function viewerRouter(uiDir: string = UI_DIR, r: Router = controlPrefixRouter()): Router {
  const assets = new Set(readdirSync(join(uiDir, "assets")));
  r.get("/ui/assets/:file", (req, res, next) => {
    const file = String(req.params["file"]);
    if (!assets.has(file)) return next();
    res.type(typeOf(file)).setHeader("Cache-Control", "no-cache");
    sendViewerFile(res, join(uiDir, "assets", file));
  });
  r.get("/ui/vendor/:file", (req, res, next) => {
    const file = String(req.params["file"]);
    const path = vendorPath(file);
    if (!path) return next();
    res.type(typeOf(file)).setHeader("Cache-Control", "max-age=3600");
    sendViewerFile(res, path);
  });
  const page = readFileSync(join(uiDir, "index.html"), "utf8");
  r.get(["/ui", "/ui/*rest"], (req, res, next) => {
    if (/^\/ui\/(assets|vendor)\//.test(req.path)) return next();
    res.type("html").setHeader("Cache-Control", "no-cache");
    // Its files from under the path it was reached at: a pool id's page (/<id>/__fakex/ui)
    // loads them below /<id>/ too, so a proxy that forwards only /<id>/ serves a whole page.
    res.send(page.replaceAll("/__fakex/ui/", `${req.baseUrl}/ui/`));
  });
  // The viewer's pages and files are read only: another method is the control API's 405.
  r.all(["/ui", "/ui/*rest"], onlyGet);
  // A path express cannot decode (/ui/%zz) answers like every control route, not with
  // express's HTML page and its stack trace.
  r.use(((err, _req, res, next) => {
    if (res.headersSent || !(err instanceof URIError)) return next(err);
    res.status(400).json({ detail: err.message });
  }) as ErrorRequestHandler);
  return r;
}
