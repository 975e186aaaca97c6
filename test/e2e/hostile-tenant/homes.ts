import { execFileSync, spawn, spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentIdle, readRun } from "../agents";
import { agentWithSecret, generate } from "../container-stack";
import { boxesWithVariable, until } from "../sandbox-box";
import type { Boxes } from "./tenant";

/**
 * A home is never lost (SBX-005, SBX-036): a save that fails keeps the box and says so on
 * the agent's sandbox state, a home over its cap is refused at save time with the saved one
 * intact, a box stopped before its restore finished pushes nothing, a broken home is reset
 * through the API, and an agent deleted while its box starts leaves nothing behind. The
 * failures are real: a home over the workspace limit, a SIGTERM from the container engine.
 */
export function homes(boxes: Boxes): void {
  const docker = (...args: string[]) => execFileSync("docker", args, { encoding: "utf8" }).trim();
  /** A container's output, both streams (the guest says on stderr what it did on exit). */
  const logs = (id: string) => {
    const run = spawnSync("docker", ["logs", id], { encoding: "utf8" });
    return `${run.stdout}\n${run.stderr}`;
  };

  /**
   * A container's output from now on, kept once the container is gone: a box that exits is
   * removed by the engine soon after, and a `docker logs` read then finds nothing.
   */
  const follow = (id: string) => {
    const child = spawn("docker", ["logs", "--follow", id], { stdio: ["ignore", "pipe", "pipe"] });
    let text = "";
    const keep = (chunk: Buffer) => {
      text += chunk.toString("utf8");
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    return { text: () => text, stop: () => void child.kill() };
  };

  /** A coding agent with a secret of its own (its name finds the box) and these settings. */
  const agent = (settings: Record<string, unknown> = {}) => agentWithSecret(boxes.call, "Homes", { coding: true, ...settings });
  type Agent = Awaited<ReturnType<typeof agent>>;

  /** One generation running `command` through the shell tool; its answer and the run. */
  const shell = async (a: Agent, command: string) => {
    const done = await generate(boxes, a, [{ name: "shell", arguments: { command } }]);
    return { output: done.results[0] ?? "", run: done.run };
  };

  const sandbox = async (a: Agent) => {
    const res = await boxes.call("GET", `/api/agents/${a.agentId}/sandbox`);
    expect(res.status, res.text).toBe(200);
    return res.json;
  };

  /** A secret change: the agent's idle box is saved and destroyed (SEC-009), unless its home cannot be saved. */
  const rotate = async (a: Agent) => {
    const res = await boxes.call("PATCH", `/api/secrets/${a.secretId}`, { value: `rotated-${crypto.randomUUID()}` });
    expect(res.status, res.text).toBe(200);
  };

  /**
   * Whether the stack's R2 holds the agent's saved home: wrangler dev keeps its local
   * buckets' object index in SQLite files, read here as they are (read-only).
   */
  const archiveInR2 = (agentId: string) => {
    const root = join(boxes.stateDir, "wrangler", "v3", "r2");
    const indexes = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".sqlite") && !f.endsWith("metadata.sqlite"));
    expect(indexes.length).toBeGreaterThan(0);
    const query = `SELECT count(*) FROM _mf_objects WHERE key = 'homes/${agentId}.tar.zst'`;
    return indexes.some((file) => execFileSync("sqlite3", ["-readonly", join(root, file), query], { encoding: "utf8" }).trim() !== "0");
  };

  /** The agent's new box once its guest listens: the object's restore of the home comes next. */
  const untilGuestListens = async (a: Agent) => {
    let box = "";
    await until(
      "the new box to appear",
      () => {
        [box = ""] = boxesWithVariable(a.secretName);
        return box !== "";
      },
      60_000,
    );
    // Its log alone is read from here on: fast enough to land inside the restore.
    await until("its guest to listen", () => logs(box).includes("GUEST_LISTENING"), 30_000);
    return box;
  };

  /** The CLI view started in the background: it brings the box up (and restores the home) as an operator would. */
  const startCli = (a: Agent) => boxes.call("POST", `/api/agents/${a.agentId}/cli/start`);

  describe("homes that are never lost", () => {
    it("SBX-036 / SBX-040 / SEC-009: a home over its cap is refused at save time (workspace.full), the box is kept and says sandbox.home_save_failed, the saved home stays; once the limit allows it the save goes through and a new run finds the file", async () => {
      const a = await agent({ max_workspace_mib: 1 });
      expect((await shell(a, "echo first > /home/agent/keep.txt")).run.status).not.toBe("failed");
      await rotate(a);
      await until(
        "the first home to be saved and the box to go",
        async () => (await sandbox(a)).saved_home !== null && boxesWithVariable(a.secretName).length === 0,
        60_000,
      );
      const first = (await sandbox(a)).saved_home;

      // Over the 1 MiB cap: 3 MB that do not compress.
      await shell(a, "echo second > /home/agent/keep.txt && head -c 3000000 /dev/urandom > /home/agent/big.bin");
      const [box] = boxesWithVariable(a.secretName);
      expect(box).toBeDefined();
      await rotate(a);
      await until("the failed save to show", async () => (await sandbox(a)).home_save_error !== undefined, 60_000);
      const failed = await sandbox(a);
      expect(failed.home_save_error).toMatchObject({ code: "sandbox.home_save_failed", cause: "workspace.full" });
      expect(failed.home_save_error.message).toMatch(/limit of 1 MiB/);
      expect(failed.status).toBe("running");
      // The box and its files are kept; the saved home is the first one, untouched.
      expect(boxesWithVariable(a.secretName)).toEqual([box]);
      expect(failed.saved_home).toEqual(first);

      // Room again: the retry saves, the box goes, the state clears.
      expect((await boxes.call("PATCH", `/api/agents/${a.agentId}`, { max_workspace_mib: 64 })).status).toBe(200);
      await until("the retried save to succeed", async () => boxesWithVariable(a.secretName).length === 0, 120_000);
      const saved = await sandbox(a);
      expect(saved.home_save_error).toBeUndefined();
      expect(saved.saved_home.bytes).toBeGreaterThan(3_000_000);
      const again = await shell(a, "cat /home/agent/keep.txt && stat -c %s /home/agent/big.bin");
      expect(again.output).toContain("second");
      expect(again.output).toContain("3000000");
    }, 420_000);

    it("SBX-005: a saved home over a lowered limit fails the start with workspace.full; Reset home clears it and the next box starts empty", async () => {
      const a = await agent();
      await shell(a, "head -c 3000000 /dev/urandom > /home/agent/big.bin && echo there > /home/agent/keep.txt");
      await rotate(a);
      await until("the home to be saved", async () => (await sandbox(a)).saved_home !== null && boxesWithVariable(a.secretName).length === 0, 60_000);
      expect((await boxes.call("PATCH", `/api/agents/${a.agentId}`, { max_workspace_mib: 1 })).status).toBe(200);
      // Refused at its start: no model call is made, so nothing is scripted for it.
      const started = await boxes.call("POST", `/api/agents/${a.agentId}/runs`, { message: "go" });
      expect(started.status, started.text).toBe(201);
      await agentIdle(a.agentId, boxes.target, 120_000);
      expect(JSON.stringify(await readRun(started.json.id, boxes.target))).toContain("workspace.full");
      expect(boxesWithVariable(a.secretName)).toEqual([]);

      const reset = await boxes.call("POST", `/api/agents/${a.agentId}/sandbox/reset`);
      expect(reset.status, reset.text).toBe(200);
      expect(reset.json).toEqual({ reset: true, destroyed: false });
      expect((await sandbox(a)).saved_home).toBeNull();
      const fresh = await shell(a, "ls -A /home/agent; echo listed");
      expect(fresh.run.status).not.toBe("failed");
      expect(fresh.output).toContain("listed");
      expect(fresh.output).not.toContain("keep.txt");
    }, 300_000);

    it("SBX-036: a box stopped (SIGTERM) before its restore finished pushes nothing over the saved home, which the next box restores", async () => {
      const a = await agent();
      // A home large enough that its restore takes a moment.
      await shell(a, "head -c 100000000 /dev/urandom > /home/agent/big.bin && echo kept > /home/agent/keep.txt");
      await rotate(a);
      await until("the home to be saved", async () => (await sandbox(a)).saved_home !== null && boxesWithVariable(a.secretName).length === 0, 120_000);
      const saved = (await sandbox(a)).saved_home;

      const opening = startCli(a);
      const box = await untilGuestListens(a);
      const output = follow(box);
      // Attached before the kill: a follower that reaches the engine after the box is gone reads nothing.
      await until("the box's output to be followed", () => output.text().includes("GUEST_LISTENING"), 30_000);
      // Killed while the restore runs, whatever the load: its staging folder beside the home is there.
      const restoring = () => spawnSync("docker", ["exec", box, "sh", "-c", "ls -d /home/.agent.restore-*"], { stdio: "ignore" }).status === 0;
      await until("the box's restore to be under way", restoring, 60_000);
      docker("kill", "--signal", "TERM", box);
      let said = "";
      try {
        await until(
          "the guest to say what it did on exit",
          () => {
            said = /guest: home (not )?saved on exit.*/.exec(output.text())?.[0] ?? "";
            return said !== "";
          },
          30_000,
        );
      } finally {
        output.stop();
      }
      expect(said).toContain("never restored");
      expect((await opening).status).toBe(503);
      expect((await sandbox(a)).saved_home).toEqual(saved);

      const again = await shell(a, "cat /home/agent/keep.txt && stat -c %s /home/agent/big.bin");
      expect(again.output).toContain("kept");
      expect(again.output).toContain("100000000");
    }, 420_000);

    it("SBX-005: an agent deleted while its box starts leaves no box, no saved home and no archive in R2", async () => {
      const a = await agent();
      // A home for the start to restore (it takes a moment), and an archive to leave behind.
      await shell(a, "head -c 20000000 /dev/urandom > /home/agent/big.bin");
      await rotate(a);
      await until("the home to be saved", async () => (await sandbox(a)).saved_home !== null && boxesWithVariable(a.secretName).length === 0, 120_000);
      expect(archiveInR2(a.agentId)).toBe(true);

      const opening = startCli(a);
      await until("the box to be starting", async () => (await sandbox(a)).status === "starting", 30_000);
      const deleted = await boxes.call("DELETE", `/api/agents/${a.agentId}`);
      expect(deleted.status, deleted.text).toBe(204);
      expect((await opening).status).toBeGreaterThanOrEqual(400);
      // The deletion waited for the start, which tore its box down.
      expect(boxesWithVariable(a.secretName)).toEqual([]);
      expect(archiveInR2(a.agentId)).toBe(false);
      expect((await boxes.call("GET", `/api/agents/${a.agentId}/sandbox`)).status).toBe(404);
    }, 300_000);
  });
}
