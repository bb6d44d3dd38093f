// Paths of /api/v1 match as the live service's router matches them: case-sensitively and
// strictly (`/health/` is an unknown path there, a 404), so a client with a mistyped path
// fails against fakex as it would live.
import { Router } from "express";

export function apiRouter(): Router {
  return Router({ caseSensitive: true, strict: true });
}
