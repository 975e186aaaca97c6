import { type ChildProcess, spawn } from "node:child_process";
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { PostgresHome } from "./postgres-home";
import { identify, readLines, waitForExit, workingDirectory } from "./process-info";

/** A running Postgres server process. */
interface PostgresServer {
  pid: number;
  stop(): Promise<void>;
}

// English messages whatever the machine's locale: readiness is read from the log.
const ENV = { ...process.env, LC_MESSAGES: "C" };

/**
 * Creates the data folder with a superuser `user` whose password is `password`.
 *
 * @example await initialiseCluster(home, "postgres", "s3cret", console.log);
 */
export async function initialiseCluster(home: PostgresHome, user: string, password: string, log: (line: string) => void): Promise<void> {
  // Its parent may be a new folder (as root, a shared one) the server's user must enter.
  mkdirSync(dirname(home.dataDir), { recursive: true, mode: 0o755 });
  mkdirSync(home.dataDir, { recursive: true, mode: 0o700 });
  // initdb reads the password from a file that only the server's user can read.
  const secretDir = mkdtempSync(join(tmpdir(), "pg-init-"));
  const passwordFile = join(secretDir, "password");
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  if (home.user) for (const path of [home.dataDir, secretDir, passwordFile]) chownSync(path, home.user.uid, home.user.gid);
  try {
    // SCRAM: the password never crosses the socket in clear. Folders made before with
    // `password` keep their pg_hba.conf, which still works (the stored secret is SCRAM either way).
    const args = [`--pgdata=${home.dataDir}`, "--auth=scram-sha-256", `--username=${user}`, `--pwfile=${passwordFile}`, "--encoding=UTF8", "--locale=C"];
    const { code, output } = await run(join(home.binDir, "initdb"), args, home, log);
    if (code !== 0) throw new Error(`initdb failed (exit ${code}): ${lastLines(output)}`);
  } finally {
    rmSync(secretDir, { recursive: true, force: true });
  }
}

/**
 * Starts the server on the data folder and resolves once it accepts connections. A
 * server that exits first rejects with its own last log lines as the reason.
 */
export async function startServer(home: PostgresHome, port: number, flags: string[], log: (line: string) => void): Promise<PostgresServer> {
  await clearStalePidFile(home.dataDir, log);
  // TCP on loopback only, and no Unix socket: its lock file in a shared folder would be one more stale pid file.
  const child = spawn(join(home.binDir, "postgres"), ["-D", home.dataDir, "-p", String(port), "-h", "127.0.0.1", "-k", "", ...flags], {
    ...(home.user ?? {}),
    env: ENV,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const onLine = (line: string) => {
      output.push(line);
      log(line);
      if (line.includes("database system is ready to accept connections")) resolve();
    };
    readLines(child, onLine);
    child.once("error", (error) => reject(new Error(`could not run Postgres (${join(home.binDir, "postgres")}): ${error.message}`)));
    child.once("exit", (code, signal) => reject(new Error(`Postgres exited before accepting connections (${signal ?? `exit ${code}`}): ${lastLines(output)}`)));
  });
  return { pid: child.pid!, stop: () => stopServer(child) };
}

/**
 * A server killed without shutting down (power loss, `kill -9`) leaves `postmaster.pid`
 * behind, and Postgres refuses to start while the pid it names is alive, even when that
 * pid now belongs to an unrelated program. A Postgres still serving this folder (left by
 * a crashed start) is stopped; any other pid means the file is stale and it is removed.
 */
async function clearStalePidFile(dataDir: string, log: (line: string) => void): Promise<void> {
  const pidFile = join(dataDir, "postmaster.pid");
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
  const found = identify(pid);
  if (found && servesFolder(found.pid, found.argv, dataDir)) {
    log(`stopping a Postgres server left running on ${dataDir} (pid ${pid})`);
    signal(pid, "SIGINT"); // fast shutdown
    if (await waitForExit(pid, 15_000)) return;
    signal(pid, "SIGKILL");
    await waitForExit(pid, 5_000);
  }
  log(`removing the stale ${pidFile} (pid ${pid} is no Postgres server of this folder)`);
  rmSync(pidFile, { force: true });
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

/** Whether a process is a Postgres server whose data folder is `dataDir` (its -D argument, or its working directory). */
function servesFolder(pid: number, argv: string[], dataDir: string): boolean {
  if (!/(^|\/)postgres$/.test(argv[0] ?? "")) return false;
  const want = canonical(dataDir);
  const flag = argv.indexOf("-D");
  if (flag >= 0 && argv[flag + 1] && canonical(argv[flag + 1]!) === want) return true;
  const cwd = workingDirectory(pid);
  return cwd !== null && canonical(cwd) === want;
}

function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/**
 * Stops the server with a fast shutdown. When it already exited (Ctrl-C reaches the whole
 * process group) there is nothing to wait for; checking first avoids waiting for an
 * `exit` event that already happened.
 */
function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGINT");
  });
}

function run(program: string, args: string[], home: PostgresHome, log: (line: string) => void): Promise<{ code: number | null; output: string[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { ...(home.user ?? {}), env: ENV, stdio: ["ignore", "pipe", "pipe"] });
    const output: string[] = [];
    readLines(child, (line) => {
      output.push(line);
      log(line);
    });
    child.once("error", (error) => reject(new Error(`could not run ${program}: ${error.message}`)));
    child.once("close", (code) => resolve({ code, output }));
  });
}

function lastLines(output: string[]): string {
  return output.slice(-5).join(" | ") || "(no output)";
}
