import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { clearLeftovers, liveOwner, ProcessRecord, StackAlreadyRunning } from "./leftovers";
import { alive, identify, waitForExit } from "./process-info";

/** A child in its own process group with a child of its own, as wrangler dev runs workerd. */
function group() {
  return spawn("sh", ["-c", "sleep 300 & wait"], { detached: true, stdio: "ignore" });
}

describe("what a killed stack left running", () => {
  const stateDir = mkdtempSync(join(tmpdir(), "guilds-leftovers-"));
  const started: number[] = [];
  afterAll(() => {
    for (const pid of started)
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        /* gone */
      }
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

  it("HARDEN-5: a second start of a folder whose stack still runs is refused naming its pid, and stops nothing", async () => {
    const owner = spawn("sleep", ["300"], { stdio: "ignore" });
    const child = group();
    started.push(owner.pid!, child.pid!);
    await new Promise((r) => setTimeout(r, 200));
    new ProcessRecord(stateDir).add("wrangler dev", child.pid!, { group: true });
    const file = join(stateDir, "processes.json");
    const recorded = JSON.parse(readFileSync(file, "utf8"));
    recorded.owner = identify(owner.pid!);
    writeFileSync(file, JSON.stringify(recorded));

    const refused = clearLeftovers(stateDir, () => {});
    await expect(refused).rejects.toThrow(StackAlreadyRunning);
    await expect(refused).rejects.toThrow(`a stack of this folder is already running (pid ${owner.pid}); stop it first`);
    await new Promise((r) => setTimeout(r, 300));
    expect(alive(owner.pid!)).toBe(true);
    expect(alive(child.pid!)).toBe(true);

    // Once its process is gone, what it left is cleared.
    owner.kill("SIGKILL");
    expect(await waitForExit(owner.pid!, 5_000)).toBe(true);
    expect(liveOwner(recorded)).toBeNull();
    expect(await clearLeftovers(stateDir, () => {})).toBeGreaterThan(0);
    expect(await waitForExit(child.pid!, 5_000)).toBe(true);
  });

  it("HARDEN-5: the record of this very process, or of an owner whose pid was reused, is no running stack", () => {
    const self = identify(process.pid)!;
    expect(liveOwner({ owner: self })).toBeNull();
    const other = { ...self, pid: 424242 };
    expect(liveOwner({ owner: other }, () => ({ ...other, started: "1" }))).toBeNull();
    expect(liveOwner({ owner: other }, () => other)).toBe(424242);
  });
});
