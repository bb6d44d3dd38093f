// One pool server for the whole vitest run; each worker uses its own id (worker.spec.ts).
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
  const server = await createFakeExchangePool({ clock: "virtual", size: 4 });
  project.provide("fakexPool", server.info.pool!);
  project.provide("fakexAccounts", server.info.accounts);
  return () => server.close();
}
