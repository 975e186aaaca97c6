/**
 * Running commands: each in its own process group and marked with its id in the
 * environment (process-sweep.ts), so a timeout or a kill reaches every descendant, also
 * one that left the group (setsid, a double fork, nohup), not just bash; output streamed as
 * NDJSON frames under a shared byte budget.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { StringDecoder } from "node:string_decoder";
import type { ExecRequest } from "./exec-request";
import { type ExecLine, frame } from "./ndjson";
import { OutputBudget, truncationMarker } from "./output-limit";
import { EXEC_MARKER, killMarked, signalMarked } from "./process-sweep";

/** How long a process group gets between SIGTERM and SIGKILL. */
export const KILL_GRACE_MS = 2_000;
/**
 * After bash exits, how long to wait for its pipes to close. A command that leaves a
 * background process holding stdout (`server &`) would otherwise hold the response open
 * until that process ends; the leftover keeps running, its later output is dropped.
 */
const DRAIN_AFTER_EXIT_MS = 250;

export interface RunningExec {
  id: string;
  /** Ends the command: SIGTERM to its group, SIGKILL after the grace period. */
  kill(): void;
  done: Promise<void>;
}

/** The commands now running, by id, so `POST /exec/:id/kill` can reach them. */
export const running = new Map<string, RunningExec>();

/** Kills every running command (the guest is shutting down). */
export function killAll(): void {
  for (const handle of running.values()) handle.kill();
}

/** Sends a signal to a whole process group; a group already gone is fine. */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: nothing left in the group.
  }
}

/**
 * Starts `bash -lc <command>` and writes frames to `write` until the final `exit` frame.
 * `baseEnv` is the guest's own environment (without its token); the request's env is merged over it.
 */
export function startExec(request: ExecRequest, baseEnv: NodeJS.ProcessEnv, write: (text: string) => void, id: string = randomUUID()): RunningExec {
  const started = performance.now();
  const budget = new OutputBudget(request.maxOutputBytes);
  let timedOut = false;
  let killed = false;
  let finishing = false;
  let finished = false;
  let killTimer: NodeJS.Timeout | undefined;
  /** The SIGTERM sweep of escaped processes; the exit frame waits for it. */
  let sweep: Promise<unknown> = Promise.resolve();

  const child: ChildProcess = spawn("bash", ["-lc", request.command], {
    cwd: request.cwd,
    env: { ...baseEnv, ...request.env, [EXEC_MARKER]: id },
    detached: true, // its own process group, led by bash
    stdio: ["ignore", "pipe", "pipe"],
  });

  const emit = (line: ExecLine) => {
    if (!finished || line.type === "exit") write(frame(line));
  };
  emit({ type: "start", id, pid: child.pid ?? null });

  const terminate = () => {
    if (child.pid === undefined || killTimer) return;
    signalGroup(child.pid, "SIGTERM");
    sweep = signalMarked(id, "SIGTERM");
    killTimer = setTimeout(() => {
      signalGroup(child.pid!, "SIGKILL");
      void killMarked(id);
    }, KILL_GRACE_MS);
    killTimer.unref();
  };

  const decoders = { stdout: new StringDecoder("utf8"), stderr: new StringDecoder("utf8") };
  for (const stream of ["stdout", "stderr"] as const) {
    const decoder = decoders[stream];
    child[stream]!.on("data", (chunk: Buffer) => {
      const { kept, cutHere } = budget.take(chunk);
      const text = decoder.write(Buffer.from(kept.buffer, kept.byteOffset, kept.length)) + (cutHere ? decoder.end() : "");
      if (text) emit({ type: "output", stream, data: text });
      if (cutHere) emit({ type: "output", stream, data: truncationMarker(budget.limitBytes) });
    });
  }

  const timeout = setTimeout(() => {
    timedOut = true;
    terminate();
  }, request.timeoutMs);

  let resolveDone!: () => void;
  const done = new Promise<void>((resolve) => (resolveDone = resolve));

  const finish = (exitCode: number | null, signal: string | null, error?: string) => {
    if (finishing) return;
    finishing = true;
    clearTimeout(timeout);
    void sweep.then(() => finishNow(exitCode, signal, error));
  };

  const finishNow = (exitCode: number | null, signal: string | null, error?: string) => {
    // A command that ended mid-character: its last bytes come out as U+FFFD rather than vanish.
    if (!budget.truncated) {
      for (const stream of ["stdout", "stderr"] as const) {
        const rest = decoders[stream].end();
        if (rest) emit({ type: "output", stream, data: rest });
      }
    }
    const line: ExecLine = {
      type: "exit",
      id,
      exit_code: exitCode,
      signal,
      timed_out: timedOut,
      killed,
      truncated: budget.truncated,
      duration_ms: Math.round(performance.now() - started),
    };
    if (error !== undefined) line.error = error;
    emit(line);
    finished = true;
    running.delete(id);
    resolveDone();
  };

  child.on("error", (err) => finish(null, null, `could not start bash: ${err.message}`));
  // After a timeout or kill, the SIGKILL timer still fires for whatever in the group outlived bash.
  child.on("exit", (code, signal) => {
    const drain = setTimeout(() => {
      child.stdout?.destroy();
      child.stderr?.destroy();
      finish(code, signal);
    }, DRAIN_AFTER_EXIT_MS);
    child.on("close", () => {
      clearTimeout(drain);
      finish(code, signal);
    });
  });

  const handle: RunningExec = {
    id,
    kill() {
      if (finished) return;
      killed = true;
      terminate();
    },
    done,
  };
  running.set(id, handle);
  return handle;
}
