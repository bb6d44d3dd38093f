// The offline build: the committed artifacts match the sources, and the solc shim
// behaves like the native solc forge expects (version line, standard-json over stdio,
// imports resolved from disk only inside the allowed paths).
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Exchange, SOURCE_HASH } from "../../sim/chain/artifacts.ts";

const root = path.resolve(import.meta.dirname, "../..");
const shim = path.join(root, "tools", "solc-shim.mjs");

function runShim(args: string[], input = "") {
  return spawnSync(process.execPath, [shim, ...args], { cwd: root, input, encoding: "utf8" });
}

describe("contract build", () => {
  it("sim/chain/artifacts.ts is up to date with contracts/** (build-contracts --check)", () => {
    const res = spawnSync(process.execPath, [path.join(root, "tools", "build-contracts.mjs"), "--check"], { cwd: root, encoding: "utf8" });
    expect(res.stderr).toBe("");
    expect(res.status).toBe(0);
    expect(SOURCE_HASH).toMatch(/^[0-9a-f]{64}$/);
    expect(Exchange.bytecode).toMatch(/^0x[0-9a-f]{2000,}$/);
  });

  it("the shim reports a native-looking 0.8.28 version", () => {
    const res = runShim(["--version"]);
    expect(res.status).toBe(0);
    expect(res.stdout).toBe("solc, the solidity compiler commandline interface\nVersion: 0.8.28+commit.7893614a.Linux.g++\n");
  });

  it("the shim compiles standard JSON and resolves imports only inside the allowed paths", { timeout: 60_000 }, () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-shim-"));
    writeFileSync(path.join(dir, "Lib.sol"), "// SPDX-License-Identifier: MIT\npragma solidity 0.8.28;\nlibrary Lib { function two() internal pure returns (uint256) { return 2; } }\n");
    const input = JSON.stringify({
      language: "Solidity",
      sources: {
        "Main.sol": {
          content:
            '// SPDX-License-Identifier: MIT\npragma solidity 0.8.28;\nimport {Lib} from "Lib.sol";\ncontract Main { function f() external pure returns (uint256) { return Lib.two(); } }\n',
        },
      },
      settings: { evmVersion: "cancun", outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } } },
    });
    const ok = JSON.parse(runShim(["--base-path", dir, "--allow-paths", dir, "--standard-json"], input).stdout);
    expect(ok.errors ?? []).toEqual([]);
    expect(ok.contracts["Main.sol"].Main.abi[0].name).toBe("f");
    expect(ok.contracts["Main.sol"].Main.evm.bytecode.object.length).toBeGreaterThan(10);

    // Same import with the base path elsewhere and the directory not allowed: not found.
    const denied = JSON.parse(runShim(["--base-path", root, "--allow-paths", root, "--standard-json"], input).stdout);
    expect(denied.errors.some((e: { severity: string; message: string }) => e.severity === "error" && /Lib\.sol/.test(e.message))).toBe(true);
  });
});
