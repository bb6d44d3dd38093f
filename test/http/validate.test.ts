import { describe, expect, it } from "vitest";
import express, { Router } from "express";
import request from "supertest";
import { z } from "zod";
import { ExchangeError } from "../../sim/core/errors.ts";
import { jsonBody } from "../../sim/http/body.ts";
import { errorHandler, notFoundHandler } from "../../sim/http/errors.ts";
import { parseInput } from "../../sim/http/validate.ts";

const FxQuery = z.object({
  base: z.string().regex(/^[A-Za-z]+$/, "must be alphabetic"),
  quote: z.string().regex(/^[A-Za-z]+$/, "must be alphabetic"),
});
const Body = z.object({ side: z.enum(["bid", "ask"]), amount: z.string() });

function thrown(f: () => unknown): ExchangeError {
  try {
    f();
  } catch (e) {
    if (e instanceof ExchangeError) return e;
    throw e;
  }
  throw new Error("did not throw");
}

describe("parseInput", () => {
  it("returns the parsed value", () => {
    expect(parseInput(FxQuery, { base: "EUR", quote: "usd", extra: "x" }, "query")).toEqual({ base: "EUR", quote: "usd" });
  });

  it("throws 422 VALIDATION by default with a readable, located detail", () => {
    const e = thrown(() => parseInput(FxQuery, { base: "EU1" }, "query"));
    expect(e.status).toBe(422);
    expect(e.code).toBe("VALIDATION");
    expect(e.detail).toMatch(/^query\.base: must be alphabetic; query\.quote: /);
  });

  it("a query key given twice (an array) is named as such, not as missing", () => {
    const e = thrown(() => parseInput(FxQuery, { base: ["EUR", "USD"], quote: "usd" }, "query"));
    expect(e.detail).toBe("query.base: given more than once; send it once");
    // In a body an array is just the wrong type: the schema's own message.
    expect(thrown(() => parseInput(FxQuery, { base: ["EUR"], quote: "usd" }, "body")).detail).not.toMatch(/more than once/);
  });

  it("uses the route's status when the spec says 400", () => {
    expect(thrown(() => parseInput(FxQuery, {}, "query", { status: 400 })).status).toBe(400);
  });

  it("says the body must be a JSON object when it is missing or not an object", () => {
    for (const v of [undefined, null, "x", 3]) {
      const e = thrown(() => parseInput(Body, v, "body"));
      expect(e.detail).toBe("body: request body must be a JSON object");
      expect(e.status).toBe(422);
    }
  });

  it("words zod's own defaults: a missing field is required, a wrong type says the type, a bare pattern is not printed", () => {
    const S = z.object({ n: z.number(), arr: z.array(z.string()), code: z.string().regex(/^[A-Z]{3}$/), named: z.string().regex(/^x$/, "must be x") });
    const e = thrown(() => parseInput(S, { arr: "no", code: "usd", named: "y" }, "body"));
    expect(e.detail).toBe("body.n: is required; body.arr: must be an array; body.code: is not in this field's form; body.named: must be x");
  });

  it("lists at most five issues and counts the rest", () => {
    const Many = z.object(Object.fromEntries(["a", "b", "c", "d", "e", "f", "g"].map((k) => [k, z.string()])));
    const e = thrown(() => parseInput(Many, {}, "body"));
    expect(e.detail.split("; ")).toHaveLength(6);
    expect(e.detail).toMatch(/and 2 more$/);
  });
});

describe("parseInput in a route, as the routers use it", () => {
  const app = express();
  const v1 = Router();
  v1.get("/fx", (req, res) => {
    res.json(parseInput(FxQuery, req.query, "query", { status: 400 }));
  });
  v1.post("/thing", jsonBody(), (req, res) => {
    res.json(parseInput(Body, req.body, "body"));
  });
  v1.get("/broken", () => {
    throw new Error("a bug in a handler");
  });
  app.use("/api/v1", v1);
  app.use(notFoundHandler);
  app.use(errorHandler({ error: () => undefined }));

  it("passes parsed values to the handler", async () => {
    const res = await request(app).get("/api/v1/fx?base=EUR&quote=USD");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ base: "EUR", quote: "USD" });
    const b = await request(app).post("/api/v1/thing").send({ side: "bid", amount: "1.5" });
    expect(b.body).toEqual({ side: "bid", amount: "1.5" });
  });

  it("rejects with the configured status and a plain detail", async () => {
    const res = await request(app).get("/api/v1/fx?base=EUR");
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: expect.stringMatching(/^query\.quote: /) });
    // A repeated query parameter arrives as an array and is rejected, not coerced.
    const twice = await request(app).get("/api/v1/fx?base=EUR&base=GBP&quote=USD");
    expect(twice.status).toBe(400);
    expect(twice.body.detail).toMatch(/^query\.base: /);
  });

  it("rejects a non-JSON content type as a missing body (422), naming the content type", async () => {
    const res = await request(app).post("/api/v1/thing").set("Content-Type", "text/plain").send("side=bid");
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      detail: "body: request body must be a JSON object (the body was sent as Content-Type text/plain, which is not read: send JSON as application/json)",
    });
    // With no body at all there is nothing to hint at.
    const empty = await request(app).post("/api/v1/thing").set("Content-Type", "text/plain");
    expect(empty.status).toBe(422);
    expect(empty.body).toEqual({ detail: "body: request body must be a JSON object" });
  });

  it("reads a body sent without Content-Type as JSON", async () => {
    const res = await request(app)
      .post("/api/v1/thing")
      .set("Content-Type", "")
      .send(Buffer.from(JSON.stringify({ side: "ask", amount: "2" })));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ side: "ask", amount: "2" });
  });

  it("answers an unexpected error in a handler with the spec's 503, not a stack", async () => {
    const res = await request(app).get("/api/v1/broken");
    expect(res.status).toBe(503);
    expect(JSON.stringify(res.body)).not.toMatch(/a bug in a handler/);
  });
});
