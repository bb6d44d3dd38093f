#!/usr/bin/env node
// `npm test`: `vitest run` under a watchdog. Every test has a timeout, but a test worker
// can still stop for good where no timeout reaches: blocked between two files, in an
// import, or on a call to the main process (vitest waits on those without a limit).
// Then the run would only end at CI's own time limit, with nothing said. Instead:
// after FAKEX_TEST_STALL_S seconds (default 1200, above the longest test timeout, 900 s)
// without a test finishing, this prints what was running (files, the process tree with
// each process's kernel wait, and a Node diagnostic report of vitest and each test worker: its
// JavaScript stack and open handles), stops the run, and runs the files that had not
// finished once more. Tests that failed before the stall still fail the command; a
// second stall fails it. Arguments are passed on to vitest (use --opt=value forms: only
// options, not file filters, carry over to the second pass).
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const vitestBin = path.join(root, "node_modules", "vitest", "vitest.mjs");
const reporter = path.join(root, "tools", "test-progress.mjs");
const STALL_S = Number(process.env.FAKEX_TEST_STALL_S ?? 1200);
const POLL_MS = 5000;

function readEvents(file) {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

/** One vitest run; resolves with its exit code, or with the stall's details if it stopped making progress. */
function runVitest(args, label) {
  const work = mkdtempSync(path.join(tmpdir(), "fakex-test-run-"));
  const progress = path.join(work, "progress.jsonl");
  const reports = path.join(work, "reports");
  mkdirSync(reports);
  const reportFlags = ["--report-on-signal", "--report-signal=SIGUSR2", `--report-directory=${reports}`];
  // Naming a reporter replaces vitest's default one: keep it unless the caller names their own.
  const reporters = args.some((a) => a.startsWith("--reporter")) ? [] : ["--reporter=default"];
  const child = spawn(process.execPath, [...reportFlags, vitestBin, "run", ...reporters, `--reporter=${reporter}`, ...args], {
    cwd: root,
    stdio: "inherit",
    // Its own process group, so a stalled run is stopped with everything it started.
    detached: true,
    env: { ...process.env, FAKEX_TEST_PROGRESS: progress, FAKEX_TEST_REPORT_DIR: reports },
  });
  const forward = (signal) => () => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  const onInt = forward("SIGINT");
  const onTerm = forward("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);

  return new Promise((resolve) => {
    let lastSize = -1;
    let lastChange = Date.now();
    let stall = null;
    const timer = setInterval(async () => {
      const size = existsSync(progress) ? statSync(progress).size : 0;
      if (size !== lastSize) {
        lastSize = size;
        lastChange = Date.now();
        return;
      }
      if (stall || Date.now() - lastChange < STALL_S * 1000) return;
      clearInterval(timer);
      stall = await describeStall(child.pid, readEvents(progress), reports, label);
      process.stdout.write(stall.text);
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }, POLL_MS);
    child.on("exit", (code, signal) => {
      clearInterval(timer);
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
      const events = readEvents(progress);
      rmSync(work, { recursive: true, force: true });
      resolve({ code: code ?? (signal ? 1 : 0), stall, events });
    });
  });
}

/** The descendants of `pid` (by /proc), with state, kernel wait channel and command. */
function processTree(pid) {
  const all = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const after = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const wchan = readFileSync(`/proc/${name}/wchan`, "utf8").trim() || "-";
      const cmd = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").join(" ").trim();
      all.push({ pid: Number(name), state: after[0], ppid: Number(after[1]), wchan, cmd });
    } catch {
      // gone while we looked
    }
  }
  const out = [];
  const walk = (p, depth) => {
    for (const c of all.filter((x) => x.ppid === p)) {
      out.push({ ...c, depth });
      walk(c.pid, depth + 1);
    }
  };
  const self = all.find((x) => x.pid === pid);
  if (self) out.push({ ...self, depth: 0 });
  walk(pid, 1);
  return out;
}

/** Vitest's own processes by role; anything else by its command line, cut short. */
function nameOf(cmd) {
  if (cmd.includes(vitestBin)) return "vitest main";
  if (cmd.includes("--report-on-signal")) return "vitest test worker";
  return cmd.slice(0, 140);
}

/** What a vitest process's diagnostic report says: its JavaScript stack and its open handles. */
function summariseReport(file) {
  const r = JSON.parse(readFileSync(file, "utf8"));
  const frames = (r.javascriptStack?.stack ?? []).filter((f) => f.trim() && f.trim() !== "Unavailable.");
  const lines = [`  process ${r.header?.processId}: ${frames.length ? r.javascriptStack.message : "event loop idle, waiting"}`];
  for (const frame of frames.slice(0, 12)) lines.push(`      ${frame.trim()}`);
  const handles = new Map();
  for (const h of r.libuv ?? []) {
    if (!h.is_active) continue;
    const what = h.type === "tcp" && h.remoteEndpoint ? `tcp to :${h.remoteEndpoint.port}` : h.type === "process" ? `process ${h.pid}` : h.type;
    handles.set(what, (handles.get(what) ?? 0) + 1);
  }
  lines.push(`    open handles: ${[...handles].map(([k, n]) => (n > 1 ? `${k} ×${n}` : k)).join(", ") || "none"}`);
  return lines;
}

async function describeStall(pid, events, reportDir, label) {
  const ended = new Set(events.filter((e) => e.e === "end").map((e) => e.file));
  const started = events.filter((e) => (e.e === "start" || e.e === "queued") && !ended.has(e.file)).map((e) => e.file);
  const lastTest = [...events].reverse().find((e) => e.e === "test");
  const lines = [
    "",
    `run-tests: ${label}: no test finished for ${STALL_S} s.`,
    `  files handed to a worker, unfinished: ${[...new Set(started)].join(", ") || "none"}`,
    `  last test to finish: ${lastTest ? `${lastTest.file} > ${lastTest.name} (${lastTest.state})` : "none"}`,
    "  processes (pid state kernel-wait command):",
  ];
  const tree = processTree(pid);
  for (const p of tree) lines.push(`  ${"  ".repeat(p.depth)}${p.pid} ${p.state} ${p.wchan} ${nameOf(p.cmd)}`);
  // Vitest and its test workers run with --report-on-signal (here and in vitest.config.ts).
  const workers = tree.filter((p) => p.cmd.includes("--report-on-signal"));
  for (const w of workers) {
    try {
      process.kill(w.pid, "SIGUSR2");
    } catch {
      // gone
    }
  }
  if (workers.length > 0) await new Promise((r) => setTimeout(r, 5000));
  const files = existsSync(reportDir) ? readdirSync(reportDir).filter((f) => f.endsWith(".json")) : [];
  for (const f of files) {
    try {
      lines.push(...summariseReport(path.join(reportDir, f)));
    } catch (e) {
      lines.push(`  report ${f}: unreadable (${e.message})`);
    }
  }
  // A report needs the worker's event loop: state R is JavaScript that never yields.
  if (files.length < workers.length) lines.push(`  ${workers.length - files.length} of ${workers.length} vitest processes wrote no report: an event loop is blocked (state R: JavaScript that never yields)`);
  lines.push("");
  return { text: `${lines.join("\n")}\n`, files: [...new Set(started)] };
}

const args = process.argv.slice(2);
const first = await runVitest(args, "first pass");
if (!first.stall) process.exit(first.code);

// The run stalled: run what had not finished once more, and say so last (CI shows the tail).
const run = first.events.find((e) => e.e === "run");
const done = new Map(first.events.filter((e) => e.e === "end").map((e) => [e.file, e.state]));
const failedBefore = [...done].filter(([, s]) => s === "failed").map(([f]) => f);
const left = run ? run.files.filter((f) => !done.has(f)) : [];
const options = args.filter((a) => a.startsWith("-"));
const second = run && left.length === 0 ? { code: 0, stall: null } : await runVitest(run ? [...options, ...left] : args, "second pass");
const ok = !second.stall && second.code === 0 && failedBefore.length === 0;
process.stdout.write(
  [
    "",
    first.stall.text.trim(),
    `run-tests: the first pass stopped making progress; ${done.size} files had finished${failedBefore.length ? `, these failed: ${failedBefore.join(", ")}` : ", none failed"}.`,
    `run-tests: the ${run ? left.length : "all"} files left ran again: ${second.stall ? "it stalled too" : `exit ${second.code}`}.`,
    `run-tests: ${ok ? "passed, but a stall is a bug to find: see the report above" : "failed"}.`,
    "",
  ].join("\n"),
);
process.exit(ok ? 0 : 1);
