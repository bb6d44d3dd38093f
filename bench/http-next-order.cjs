// autocannon worker hook for bench/http.ts: each request takes the next pre-signed
// POST /orders body from the file named by FAKEX_BENCH_BODIES (one JSON body a line),
// so the load generator runs on its own thread and no order id is sent twice.
"use strict";
const { readFileSync } = require("node:fs");

const bodies = readFileSync(process.env.FAKEX_BENCH_BODIES, "utf8").split("\n").filter((l) => l.length > 0);
let next = 0;

module.exports = function nextOrder(req) {
  return { ...req, body: bodies[next++ % bodies.length] };
};
