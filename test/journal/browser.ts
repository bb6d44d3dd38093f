// Headless Chromium (Debian's package) driven by playwright-core, for the viewer tests.
// Playwright's own browser downloads are not used: CI installs /usr/bin/chromium.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { PNG } from "pngjs";

export const CHROMIUM = process.env["FAKEX_CHROMIUM"] ?? "/usr/bin/chromium";
export const chromiumAvailable = existsSync(CHROMIUM);

export interface RunningBrowser {
  browser: Browser;
  context: BrowserContext;
  close(): Promise<void>;
}

/** `timezoneId`: the browser's time zone (the viewer must not depend on it). */
export async function launchChromium(o: { timezoneId?: string; locale?: string } = {}): Promise<RunningBrowser> {
  const profile = mkdtempSync(join(tmpdir(), "fakex-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    ...(o.timezoneId ? { timezoneId: o.timezoneId } : {}),
    ...(o.locale ? { locale: o.locale } : {}),
    viewport: { width: 1280, height: 900 },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  const browser = context.browser()!;
  return {
    browser,
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Distinct colours in a PNG: a blank page has one (or a handful from anti-aliasing). */
export function distinctColours(png: Buffer): number {
  const img = PNG.sync.read(png);
  const seen = new Set<number>();
  for (let i = 0; i < img.data.length; i += 4) seen.add(img.data.readUInt32BE(i));
  return seen.size;
}

/**
 * Hold the page's requests to `url` (a playwright glob) until release(), so the page's
 * in-between state can be seen; stop() releases them and removes the hold.
 */
export async function holdRequests(page: Page, url: string): Promise<{ release(): void; stop(): Promise<void> }> {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  await page.route(url, async (route) => {
    await held;
    await route.continue();
  });
  return {
    release,
    async stop() {
      release();
      await page.unroute(url);
    },
  };
}
