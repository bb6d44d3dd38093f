// A request waiting out a route fault's latency when the exchange closes: it is never
// served (it answers 503, Retry-After 1), and its timer does not keep the process alive (a
// process whose last exchange closed exits at once, as the README promises).
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, test } from "vitest";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const SCRIPT = `
import { createFakeExchange } from "./fixtures/fake-exchange.ts";
const ex = await createFakeExchange({ liquidity: false, users: 1 });
ex.control.setRouteFaults([{ method: "GET", path: "/system/time", latency_ms: 60000 }]);
const pending = fetch(ex.baseUrl + "/system/time").then((r) => "answered " + r.status + " retry-after " + r.headers.get("retry-after"), (e) => "dropped");
// In its delay once the rule has taken it (after a fixed wait, a late request found the server closed).
for (let i = 0; i < 1000 && ex.parts.routeFaults.taken < 1; i++) await new Promise((r) => setTimeout(r, 10));
await ex.close();
console.log(await pending);
console.log("closed");
`;

describe("route-fault latency and close()", () => {
  test("the delayed request answers 503 unserved and the process exits at once", { timeout: 40_000 }, async () => {
    // The delay (60 s) outlasts the test's timeout (40 s): a timer left behind would keep the child alive past it.
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "--input-type=module", "-e", SCRIPT], { cwd: REPO });
    expect(stdout.trim().split("\n")).toEqual(["answered 503 retry-after 1", "closed"]);
  });
});
