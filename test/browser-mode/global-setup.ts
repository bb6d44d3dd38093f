// One pool for the run. With browser.instances, vitest runs the root globalSetup once for
// the root project and once per instance, in one process: they share one pool.
import { availableParallelism } from "node:os";
import type { TestProject } from "vitest/node";
import { createFakeExchangePool, type FakeExchangeInfo } from "../../fixtures/index.ts";

declare module "vitest" {
  export interface ProvidedContext {
    fakexPool: NonNullable<FakeExchangeInfo["pool"]>;
    fakexAccount: FakeExchangeInfo["accounts"][number];
  }
}

type Shared = { pool: ReturnType<typeof createFakeExchangePool>; users: number };
const shared = globalThis as typeof globalThis & { fakexShared?: Shared };

export default async function setup(project: TestProject) {
  const s = (shared.fakexShared ??= { pool: createFakeExchangePool({ size: project.config.maxWorkers ?? availableParallelism() }), users: 0 });
  s.users++;
  const server = await s.pool;
  project.provide("fakexPool", server.info.pool!);
  project.provide("fakexAccount", server.info.accounts[0]!);
  return async () => {
    if (--s.users === 0) await server.close();
  };
}
