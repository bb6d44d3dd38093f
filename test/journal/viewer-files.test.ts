// The viewer's files are served from wherever the package is installed, dot folders
// included (pnpm's node_modules/.pnpm, npx's ~/.npm/_npx, nvm's ~/.nvm): express refuses
// paths with a dot segment unless told otherwise.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import express from "express";
import request from "supertest";
import { afterAll, describe, expect, it } from "vitest";
import { UI_DIR, viewerRouter } from "../../sim/http/control-ui.ts";

describe("viewer files under a dot folder", () => {
  const root = mkdtempSync(join(tmpdir(), "fakex-ui-"));
  const uiDir = join(root, "node_modules", ".pnpm", "fakex@0.1.0", "node_modules", "fakex", "ui");
  cpSync(UI_DIR, uiDir, { recursive: true });
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const app = express().use("/__fakex", viewerRouter(uiDir));

  it("serves the page, its assets and the vendored libraries", async () => {
    const page = await request(app).get("/__fakex/ui/orders/abc");
    expect(page.status).toBe(200);
    expect(page.text).toBe(readFileSync(join(uiDir, "index.html"), "utf8"));
    const asset = readdirSync(join(uiDir, "assets")).find((f) => f.endsWith(".js"))!;
    const js = await request(app).get(`/__fakex/ui/assets/${asset}`);
    expect(js.status).toBe(200);
    expect(js.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(js.text).toBe(readFileSync(join(uiDir, "assets", asset), "utf8"));
    // The page and its own files are checked again on each load (a new fakex's viewer is never
    // served stale from the cache); the vendored libraries may be kept an hour.
    expect([page.headers["cache-control"], js.headers["cache-control"]]).toEqual(["no-cache", "no-cache"]);
    expect((await request(app).get("/__fakex/ui/vendor/preact.js")).headers["cache-control"]).toBe("max-age=3600");
    expect((await request(app).get("/__fakex/ui/vendor/preact.js")).status).toBe(200);
    // Only listed files: anything else under the folder is not served.
    expect((await request(app).get("/__fakex/ui/assets/..%2Findex.html")).status).toBe(404);
    // Names Object has as members are not vendored files either (they found Object's: a 500 with a stack).
    for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      const res = await request(app).get(`/__fakex/ui/vendor/${name}`);
      expect(res.status, name).toBe(404);
      expect(res.text, name).not.toMatch(/node_modules|at .*\.ts:\d+/);
    }
  });

  it("a path with broken percent-encoding answers 400 {detail} as JSON, without express's HTML error page", async () => {
    for (const path of ["/__fakex/ui/requests/%E0%A4%A", "/__fakex/ui/%ZZ", "/__fakex/ui/assets/%E0", "/__fakex/ui/vendor/%E0"]) {
      const res = await request(app).get(path);
      expect(res.status, path).toBe(400);
      expect(res.headers["content-type"], path).toMatch(/^application\/json/);
      expect(res.body.detail, path).toMatch(/decode/i);
      expect(res.text, path).not.toMatch(/node_modules|at .*\.js:\d+/);
    }
  });

  it("another method on a viewer page or file is the control API's 405 with Allow: GET", async () => {
    for (const path of ["/__fakex/ui", "/__fakex/ui/accounts/0xabc", "/__fakex/ui/assets/app.js", "/__fakex/ui/vendor/preact.js"]) {
      for (const method of ["post", "delete"] as const) {
        const res = await request(app)[method](path);
        expect([path, method, res.status, res.headers["allow"], res.body]).toEqual([path, method, 405, "GET", { detail: "Method Not Allowed" }]);
      }
    }
  });
});
