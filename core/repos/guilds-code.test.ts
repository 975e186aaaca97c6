import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkpointCommand, guildsCodeCommand, identityCommand, lastJson } from "./guilds-code";
import { REPOS_DIR } from "./types";

/** Runs a command line as the guest does (`bash -lc`), with HOME in a temporary folder. */
function bash(command: string, home: string): string {
  return execFileSync("bash", ["-c", command], { encoding: "utf8", env: { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: "1" } });
}

describe("guilds-code's command lines", () => {
  it("REPO-005: the identity is written to the global git configuration, a quote kept and a newline made a space", () => {
    const home = mkdtempSync(join(tmpdir(), "identity-"));
    try {
      const output = bash(identityCommand("O'Brien\nrm -rf /", "bot@agents.guilds.run"), home);
      expect(lastJson(output)).toEqual({});
      expect(bash("git config --global user.name", home).trim()).toBe("O'Brien rm -rf /");
      expect(bash("git config --global user.email", home).trim()).toBe("bot@agents.guilds.run");
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it.skipIf(existsSync(REPOS_DIR))("REPO-014: with no work tree under the repos folder the checkpoint answers [] without starting guilds-code", () => {
    const home = mkdtempSync(join(tmpdir(), "checkpoint-"));
    try {
      // guilds-code is not installed here: an answer at all means it was not started.
      expect(lastJson(bash(checkpointCommand("0b7e0000-0000-4000-8000-000000000000", "start"), home))).toEqual([]);
      expect(checkpointCommand("r", "end")).toContain(guildsCodeCommand("checkpoint", { run: "r", kind: "end" }));
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
