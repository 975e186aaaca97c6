/**
 * `guilds-code harness-turn`: one prompt through Claude Code in the task's workspace
 * (TASK-015, TASK-016, TASK-022). claude's stream-json lines go to stdout as they come (the
 * platform reads them through the guest's exec stream), then one line of our own,
 * `{"harness_turn": {...}}`, says how the turn went.
 *
 * claude runs in its own process group with a marker variable of its own, so a stop reaches
 * it and everything it started, also what left its group: SIGTERM, SIGKILL 3 s later, and
 * this command is gone within 5 s of its own SIGTERM.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { chmod, mkdir, open, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { killMarked, markedProcesses, signalMarked } from "../guest/process-sweep";
import {
  CLAUDE_CONFIG_DIR,
  claudeArgs,
  claudeEnv,
  findSessionFile,
  HARNESS_WORKSPACE,
  type HarnessTurnOptions,
  initSessionId,
  MODEL_CREDENTIAL_FILE,
  parseHarnessFlags,
  type TurnResult,
  turnResult,
} from "./harness-args";

export interface HarnessPaths {
  configDir: string;
  workspace: string;
  credentialFile: string;
  /** The program run as claude (found on PATH). */
  claude: string;
}

export const BOX_PATHS: HarnessPaths = { configDir: CLAUDE_CONFIG_DIR, workspace: HARNESS_WORKSPACE, credentialFile: MODEL_CREDENTIAL_FILE, claude: "claude" };

/** The variable marking claude and its descendants (GUILDS_* names are the platform's). */
export const TURN_MARKER = "GUILDS_HARNESS_TURN";
const TERM_GRACE_MS = 3_000;
/** After claude exits, how long its output may still take to drain (a background child can hold the pipe). */
const DRAIN_MS = 1_000;
/** After a stop, when the answer goes out even if claude has not exited. */
const GIVE_UP_MS = 4_000;
export const STDERR_BYTES = 64 * 1024;

export class HarnessSetupError extends Error {}

/**
 * What must be there before claude starts; a missing piece is named, not left to claude's
 * own error. → the prompt file, open.
 */
async function prepare(options: HarnessTurnOptions, paths: HarnessPaths, promptFile: string) {
  await mkdir(paths.configDir, { recursive: true, mode: 0o700 });
  await chmod(paths.configDir, 0o700);
  const workspace = await stat(paths.workspace).catch(() => undefined);
  if (!workspace?.isDirectory()) throw new HarnessSetupError(`the workspace ${paths.workspace} is not a folder`);
  if (!(await stat(paths.credentialFile).catch(() => undefined))?.isFile())
    throw new HarnessSetupError(`the model credential ${paths.credentialFile} is missing`);
  if (options.systemFile !== undefined && !(await stat(options.systemFile).catch(() => undefined))?.isFile()) {
    throw new HarnessSetupError(`the system file ${options.systemFile} is missing`);
  }
  return open(promptFile, "r").catch(() => {
    throw new HarnessSetupError(`the prompt file ${promptFile} cannot be read`);
  });
}

/** stderr as it comes up to a limit; past it only the last `limit` bytes, written at the end. */
class BoundedStderr {
  private live = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private dropped = 0;
  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    if (this.live < this.limit) {
      const now = chunk.subarray(0, this.limit - this.live);
      process.stderr.write(now);
      this.live += now.length;
      chunk = chunk.subarray(now.length);
    }
    if (chunk.length === 0) return;
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tailBytes - this.tail[0]!.length >= this.limit) {
      this.tailBytes -= this.tail[0]!.length;
      this.dropped += this.tail.shift()!.length;
    }
  }

  end(): void {
    if (this.tailBytes === 0) return;
    const excess = Math.max(0, this.tailBytes - this.limit);
    if (this.dropped + excess > 0) process.stderr.write(`\n[claude's stderr: ${this.dropped + excess} bytes left out]\n`);
    process.stderr.write(Buffer.concat(this.tail).subarray(excess));
  }
}

export interface HarnessTurnAnswer {
  harness_turn: {
    session_id: string;
    resumed: boolean;
    fresh_reason: "session_missing" | null;
    exit_code: number | null;
    signal: string | null;
    result: TurnResult | null;
  };
}

/**
 * The subcommand: its flags (a bad one is a UsageError), the turn, and a setup failure as
 * `{"error":"harness.setup","message"}` with exit 3.
 */
export async function harnessTurnCommand(args: string[], paths: HarnessPaths = BOX_PATHS): Promise<number> {
  const options = parseHarnessFlags(args);
  try {
    return await harnessTurn(options, paths);
  } catch (error) {
    if (!(error instanceof HarnessSetupError)) throw error;
    process.stdout.write(`${JSON.stringify({ error: "harness.setup", message: error.message })}\n`);
    return 3;
  }
}

/** Runs the turn; → this command's exit code (0 when claude finished well, 3 otherwise). */
export async function harnessTurn(options: HarnessTurnOptions, paths: HarnessPaths = BOX_PATHS): Promise<number> {
  const marker = randomUUID();
  let child: ChildProcess | undefined;
  let stoppedAt: number | undefined;
  let killTimer: NodeJS.Timeout | undefined;
  let giveUp: () => void = () => {};
  const signalAll = (signal: NodeJS.Signals) => {
    try {
      if (child?.pid) process.kill(-child.pid, signal);
    } catch {
      // The group is gone already.
    }
    return signalMarked(marker, signal, TURN_MARKER);
  };
  const stop = () => {
    if (stoppedAt !== undefined) return;
    stoppedAt = Date.now();
    void signalAll("SIGTERM");
    killTimer = setTimeout(() => void signalAll("SIGKILL").then(() => killMarked(marker, 10, TURN_MARKER)), TERM_GRACE_MS);
    setTimeout(() => giveUp(), GIVE_UP_MS).unref();
  };
  // From the start: a stop that comes before claude does must not leave this command dead and claude starting.
  const signals = ["SIGTERM", "SIGINT", "SIGHUP"] as const;
  for (const signal of signals) process.on(signal, stop);
  try {
    // An earlier turn's report must not stand in for this one's, whatever happens here.
    if (options.reportFile) await rm(options.reportFile, { force: true });
    const resumed = options.resume && (await findSessionFile(paths.configDir, options.session)) !== undefined;
    const freshReason = options.resume && !resumed ? ("session_missing" as const) : null;
    const prompt = await prepare(options, paths, freshReason ? (options.freshPromptFile ?? options.promptFile) : options.promptFile);
    if (stoppedAt !== undefined) {
      await prompt.close();
      throw new HarnessSetupError("stopped before claude started");
    }
    child = spawn(paths.claude, claudeArgs(options, !resumed, paths.credentialFile), {
      cwd: paths.workspace,
      env: { ...claudeEnv(process.env, options.baseUrl, paths.configDir), [TURN_MARKER]: marker },
      stdio: [prompt.fd, "pipe", "pipe"],
      detached: true,
    });
    const started = child;
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
      started.once("error", reject);
      started.once("exit", (code, signal) => resolve({ code, signal }));
      // A process SIGKILL cannot end (stuck in the kernel) must not keep the answer back.
      giveUp = () => resolve({ code: null, signal: null });
    });
    await prompt.close();
    const output = readOutput(started, options.session);
    const exit = await exited.catch((error: Error) => {
      throw new HarnessSetupError(`claude could not start: ${error.message}`);
    });
    await output.drained();
    if (stoppedAt !== undefined) {
      // What claude started keeps the rest of the grace to end on its own, then is killed.
      while (Date.now() < stoppedAt + TERM_GRACE_MS && (await markedProcesses(marker, "/proc", TURN_MARKER)).length > 0) await delay(50);
      await signalAll("SIGKILL");
      await killMarked(marker, 10, TURN_MARKER);
    }
    const answer: HarnessTurnAnswer = {
      harness_turn: { session_id: output.sessionId(), resumed, fresh_reason: freshReason, exit_code: exit.code, signal: exit.signal, result: output.result() },
    };
    const line = `${JSON.stringify(answer)}\n`;
    if (options.reportFile) await writeReport(options.reportFile, line);
    process.stdout.write(line);
    return exit.code === 0 && stoppedAt === undefined ? 0 : 3;
  } finally {
    clearTimeout(killTimer);
    for (const signal of signals) process.off(signal, stop);
  }
}

/**
 * claude's stdout forwarded line by line (read for its session id and result on the way) and
 * its stderr, bounded. `drained` waits for the end of both pipes, briefly: a process claude
 * left behind may hold them, and they are then let go so this command can exit.
 */
function readOutput(child: ChildProcess, session: string) {
  // Both are pipes (see the spawn); the types cannot tell with a descriptor for stdin.
  const out = child.stdout!;
  const err = child.stderr!;
  let sessionId = session;
  let result: TurnResult | null = null;
  let pending = "";
  const forward = (line: string) => {
    process.stdout.write(`${line}\n`);
    result = turnResult(line) ?? result;
    sessionId = initSessionId(line) ?? sessionId;
  };
  const ended = (stream: NodeJS.ReadableStream) => new Promise<void>((resolve) => stream.once("end", resolve).once("close", resolve));
  const done = Promise.all([ended(out), ended(err)]);
  out.setEncoding("utf8");
  out.on("data", (chunk: string) => {
    const lines = (pending + chunk).split("\n");
    pending = lines.pop()!;
    for (const line of lines) forward(line);
  });
  const stderr = new BoundedStderr(STDERR_BYTES);
  err.on("data", (chunk: Buffer) => stderr.push(chunk));
  return {
    sessionId: () => sessionId,
    result: () => result,
    async drained() {
      await Promise.race([done, delay(DRAIN_MS)]);
      out.destroy();
      err.destroy();
      if (pending) forward(pending);
      pending = "";
      stderr.end();
    },
  };
}

/** Written whole or not at all (renamed into place), readable by root alone. */
async function writeReport(file: string, line: string): Promise<void> {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
    await writeFile(temp, line, { mode: 0o600 });
    await rename(temp, file);
  } catch (error) {
    process.stderr.write(`harness-turn: the report file ${file} could not be written: ${(error as Error).message}\n`);
    await rm(temp, { force: true });
  }
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
