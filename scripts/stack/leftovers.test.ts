import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { clearLeftovers, ProcessRecord } from "./leftovers";
import { alive, waitForExit } from "./process-info";

/** A child in its own process group with a child of its own, as wrangler dev runs workerd. */
function group() {
  return spawn("sh", ["-c", "sleep 300 & wait"], { detached: true, stdio: "ignore" });
}

describe("what a killed stack left running", () => {
  const stateDir = mkdtempSync(join(tmpdir(), "guilds-leftovers-"));
  const started: number[] = [];
  afterAll(() => {
    for (const pid of started) try { process.kill(-pid, "SIGKILL"); } catch { /* gone */ }
    rmSync(stateDir, { recursive: true, force: true });
  });

  it("STACK: the next start of the same folder ends a recorded process group, its members included", async () => {
    const leader = group();
    started.push(leader.pid!);
    await new Promise((r) => setTimeout(r, 200)); // let sh start its sleep
    new ProcessRecord(stateDir).add("wrangler dev", leader.pid!, { group: true });
    const recorded = JSON.parse(readFileSync(join(stateDir, "processes.json"), "utf8"));
    const pids: number[] = recorded.children.map((c: { process: { pid: number } }) => c.process.pid);
    expect(pids).toHaveLength(2);
    const lines: string[] = [];
    expect(await clearLeftovers(stateDir, (line) => lines.push(line))).toBeGreaterThan(0);
    for (const pid of pids) expect(await waitForExit(pid, 5_000)).toBe(true);
    expect(lines.join("\n")).toContain(`wrangler dev left running by an earlier stack (pid ${leader.pid})`);
  });

  it("STACK: a recorded pid that now names another process (pid reused) is left alone", async () => {
    const stranger = group();
    started.push(stranger.pid!);
    new ProcessRecord(stateDir).add("wrangler dev", stranger.pid!, { group: true });
    // The same pid, but the process recorded then started at another time: not ours.
    const file = join(stateDir, "processes.json");
    const recorded = JSON.parse(readFileSync(file, "utf8"));
    for (const child of recorded.children) child.process.started = "1";
    writeFileSync(file, JSON.stringify(recorded));
    expect(await clearLeftovers(stateDir, () => {})).toBe(0);
    expect(alive(stranger.pid!)).toBe(true);
  });
});
