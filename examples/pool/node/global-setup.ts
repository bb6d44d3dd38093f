// One pool server for the whole vitest run; each worker uses its own id (clock.spec.ts, clock-b.spec.ts).
// A suite in another language starts `fakex serve --pool --info-file fakex.json` instead.
import type { TestProject } from "vitest/node";
import { createFakeExchangePool, type FakeExchangeInfo } from "fakex/fixtures";

declare module "vitest" {
  export interface ProvidedContext {
    fakexPool: NonNullable<FakeExchangeInfo["pool"]>;
    fakexAccounts: FakeExchangeInfo["accounts"];
  }
}

export default async function setup(project: TestProject) {
  // One instance per worker: fewer, and an idle worker's id could be released between its requests.
  const server = await createFakeExchangePool({ clock: "virtual", size: project.config.maxWorkers });
  project.provide("fakexPool", server.info.pool);
  project.provide("fakexAccounts", server.info.accounts);
  return () => server.close();
}
