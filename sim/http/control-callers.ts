// Who may call the control API (/__fakex): it changes the exchange (the clock, faults, funds)
// and takes no credentials, so it is for test code, not for web pages. A page on another
// site can still send a "simple" cross-site POST (text/plain, which the control API reads as
// JSON) without reading the answer, so a request a browser marks with another Origin is
// refused; and on a loopback server a Host that is not a loopback name is refused, which is
// what a DNS-rebinding page (its own name resolving to 127.0.0.1) would send. Test code
// (Node, curl, Python) sends no Origin and the address it connected to as Host; the run
// viewer is same-origin.
import type { RequestHandler } from "express";

const LOOPBACK_NAME = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** The Host header's name without its port ("[::1]:8545" → "[::1]"). */
function hostName(host: string): string {
  return host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.replace(/:\d*$/, "");
}

/** `loopback`: the server listens on a loopback address only (the default 127.0.0.1). */
export function controlCallers(loopback: boolean): RequestHandler {
  return (req, res, next) => {
    const host = req.headers.host;
    if (loopback && host !== undefined && !LOOPBACK_NAME.test(hostName(host))) {
      res.status(403).json({ detail: `Host ${host} is not a loopback name: this server listens on a loopback address, and the control API answers only requests to it by such a name (a page whose own name resolves to 127.0.0.1 must not drive it)` });
      return;
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !sameOrigin(origin, host)) {
      // The refusal is readable by the page, so a browser-mode test's author reads why rather
      // than a bare "Failed to fetch"; for that its preflight is let through: the request
      // itself then comes, and gets this 403 like any other.
      res.setHeader("Access-Control-Allow-Origin", "*");
      if (req.method === "OPTIONS" && req.headers["access-control-request-method"] !== undefined) {
        res.setHeader("Access-Control-Allow-Methods", "GET, POST, DELETE");
        const asked = req.headers["access-control-request-headers"];
        if (asked !== undefined) res.setHeader("Access-Control-Allow-Headers", asked);
        res.status(204).end();
        return;
      }
      res.status(403).json({ detail: `a request from the web page at ${origin} is refused: the control API (/__fakex) is for test code, not web pages (its own run viewer is served from it); a browser-mode test calls it from Node, through a vitest browser command` });
      return;
    }
    next();
  };
}

function sameOrigin(origin: string, host: string | undefined): boolean {
  try {
    return host !== undefined && new URL(origin).host === host.toLowerCase();
  } catch {
    // "null" (a sandboxed or file:// page) and anything unparsable: not this server.
    return false;
  }
}
