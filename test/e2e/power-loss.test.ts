import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, portInUse } from "../../scripts/stack/ports";
import { postgresHome, removeStateDir } from "../../scripts/stack/postgres-home";
import { alive, groupMembers, waitForExit } from "../../scripts/stack/process-info";
import { api } from "./http";
import { npmStart, terminate } from "./npm-start";

const root = process.getuid?.() === 0;

/** The processes a running stack recorded: the start process and wrangler dev's group. */
function recorded(stateDir: string): { owner: number; wrangler: number } {
  const file = JSON.parse(readFileSync(join(stateDir, "processes.json"), "utf8"));
  const wrangler = file.children.find((c: { group: boolean }) => c.group).process.pid;
  return { owner: file.owner.pid, wrangler };
}

async function health(base: string) {
  return (await api("GET", "/api/health", { base, token: null })).json;
}

/** The stack's processes and its database are what these tests are about: its sandboxes are off (GUILDS_CONTAINERS). */
describe("npm start after what laptops do", () => {
  // mkdtemp's folder is 0700: as root, the postgres user cannot enter it.
  const stateDir = mkdtempSync(join(tmpdir(), "guilds-power-"));
  const killAfter: number[] = [];
  afterAll(() => {
    for (const pid of killAfter)
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        /* gone */
      }
    removeStateDir(stateDir);
  });

  it("STACK: after every process of the stack is killed (power loss), the next start serves /api/health again", async () => {
    const port = await freePort();
    const env = { PORT: String(port), STACK_STATE_DIR: stateDir, DATABASE_URL: "", GUILDS_CONTAINERS: "off" };
    const base = `http://127.0.0.1:${port}`;
    const first = await npmStart(env);
    const { dataDir } = await postgresHome(stateDir);
    const postmaster = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
    const { wrangler } = recorded(stateDir);
    // npm start's group holds the start process and Postgres; wrangler dev's group, workerd.
    const everything = [...groupMembers(first.child.pid!), ...groupMembers(wrangler)].map((p) => p.pid);
    expect(everything).toContain(postmaster);
    for (const pid of everything)
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        /* gone */
      }
    for (const pid of everything) expect(await waitForExit(pid, 10_000)).toBe(true);

    // After the reboot another program, of the server's own user, holds the old server's pid.
    const stranger = spawn("sleep", ["300"], { stdio: "ignore", ...(root ? postgresUser() : {}) });
    killAfter.push(stranger.pid!);
    const lines = readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n");
    lines[0] = String(stranger.pid);
    writeFileSync(join(dataDir, "postmaster.pid"), lines.join("\n"));

    const second = await npmStart(env);
    expect((await health(base)).database.reachable).toBe(true);
    expect(alive(stranger.pid!)).toBe(true);
    await terminate(second, stateDir);
  }, 300_000);

  it("STACK: after kill -9 of the start process alone, the next start ends what it left and serves on the same port", async () => {
    const port = await freePort();
    const env = { PORT: String(port), STACK_STATE_DIR: stateDir, DATABASE_URL: "", GUILDS_CONTAINERS: "off" };
    const base = `http://127.0.0.1:${port}`;
    await npmStart(env);
    const { owner, wrangler } = recorded(stateDir);
    process.kill(owner, "SIGKILL");
    expect(await waitForExit(owner, 10_000)).toBe(true);
    // What this start leaves behind: wrangler dev, in its own process group, still holds the port.
    expect(alive(wrangler)).toBe(true);
    expect(await portInUse(port)).toBe(true);

    const second = await npmStart(env);
    expect(second.output.join("")).toContain(`stopping wrangler dev left running by an earlier stack (pid ${wrangler})`);
    expect(alive(wrangler)).toBe(false);
    expect((await health(base)).database.reachable).toBe(true);
    await terminate(second, stateDir);
    expect(await portInUse(port)).toBe(false);
  }, 300_000);
});

function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }));
  return { uid: id("-u"), gid: id("-g") };
}
