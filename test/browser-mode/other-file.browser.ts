// A second test file: its own pool id (the setup file runs once per file).
import { expect, test } from "vitest";

const { id, baseUrl } = (globalThis as { fakex?: { id: string; baseUrl: string } }).fakex!;

test("a second file has an id of its own", async () => {
  console.log(`pool id of this file: ${id}`);
  expect((await fetch(`${baseUrl}/health`)).status).toBe(200);
});
