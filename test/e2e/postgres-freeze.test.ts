import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { WireRow } from "./agents";
import { expectResolvedCalls, nextMessageAnswered, ownStack, rodeOut, runPastFirstTool } from "./own-stack";

/**
 * A database that accepts connections and answers nothing (every Postgres process of this
 * file's own stack stopped with SIGSTOP for 10 s, as a hung host or a stalled network looks):
 * reads answer 503 database.unavailable within seconds instead of hanging, and a generation
 * caught by it still comes through whole.
 */

const FREEZE_MS = 10_000;
/** The Worker's deadline is 5 s (core/db/client.ts REQUEST_DEADLINE_MS): an answer well before the freeze ends. */
const ANSWER_WITHIN_MS = 8_000;
const FREEZE_SCRIPT = [
  { tool_calls: [{ name: "note_write", arguments: { title: "before", body: "written before the freeze" } }], delay_ms: 300 },
  { tool_calls: [{ name: "note_write", arguments: { title: "during", body: "answered while Postgres is frozen" } }], delay_ms: 3_000 },
];

const own = ownStack("freeze");
const { call } = own;

interface Proc {
  pid: number;
  argv: string[];
  parent: number;
}

function processes(): Proc[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map((name) => {
      try {
        const argv = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0");
        // The command name may hold spaces and parentheses: the parent pid follows the last ")".
        const stat = readFileSync(`/proc/${name}/stat`, "utf8");
        const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        return { pid: Number(name), argv, parent };
      } catch {
        return null; // gone meanwhile
      }
    })
    .filter((p) => p !== null);
}

/** This stack's Postgres server: the one listening on its own port (`postgres -p <port>`); no other is touched. */
function postgresServer(port: number): number {
  const server = processes().find((p) => /(^|\/)postgres$/.test(p.argv[0] ?? "") && p.argv.some((a, i) => a === "-p" && p.argv[i + 1] === String(port)));
  if (!server) throw new Error(`no Postgres server on port ${port}`);
  return server.pid;
}

/** Sends `signal`; false when the process has exited meanwhile (a backend that ended). */
function send(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw error;
  }
}

/**
 * Runs `during` while every Postgres process of the stack is stopped for FREEZE_MS: the
 * server first (a stopped server starts no new process), then each process it started.
 * They are continued after FREEZE_MS whatever `during` does (a call that hangs until the
 * database answers must not hold the freeze), and in any case on the way out.
 */
async function frozen<T>(during: () => Promise<T>): Promise<T> {
  const server = postgresServer(Number(new URL(own.stack.databaseUrl).port));
  const stopped: number[] = [];
  const thaw = () => {
    for (const pid of stopped.splice(0).reverse()) send(pid, "SIGCONT");
  };
  const timer = setTimeout(thaw, FREEZE_MS);
  try {
    if (send(server, "SIGSTOP")) stopped.push(server);
    for (const child of processes().filter((p) => p.parent === server)) if (send(child.pid, "SIGSTOP")) stopped.push(child.pid);
    expect(stopped.length, "the server and its background processes").toBeGreaterThan(2);
    const pending = during();
    await new Promise((r) => setTimeout(r, FREEZE_MS));
    thaw();
    return await pending;
  } finally {
    clearTimeout(timer);
    thaw();
  }
}

/** How long the run may take to come through after the freeze. */
const SETTLE_MS = 45_000;

/** Every tool call has exactly one result row (CANCEL-005); the reply answered during the freeze is stored once. */
function expectWholeHistory(rows: WireRow[], before: WireRow[]) {
  expect.soft(rows.slice(0, before.length), "rows committed before the freeze").toEqual(before);
  expectResolvedCalls(rows);
  const during = rows.filter((r) => r.role === "assistant" && JSON.stringify(r.payload.tool_calls ?? []).includes("answered while Postgres is frozen"));
  expect.soft(during, "the reply answered during the freeze, committed once").toHaveLength(1);
}

describe("Postgres frozen mid-generation", () => {
  it("HARDEN-2 / CANCEL-005 / GEN-002: while every Postgres process is stopped for 10 s, GET /api/runs/:id answers 503 database.unavailable with Retry-After within seconds; afterwards the run's history is whole and the next message works", async () => {
    const { agentId, runId, before } = await runPastFirstTool(own, "Freeze", FREEZE_SCRIPT, SETTLE_MS);

    const read = await frozen(async () => {
      const asked = Date.now();
      const answer = await call("GET", `/api/runs/${runId}`);
      return { ...answer, tookMs: Date.now() - asked };
    });
    expect(read.status, read.text).toBe(503);
    expect(read.json.error.code).toBe("database.unavailable");
    expect(Number(read.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(read.tookMs, "answered, not hung until the database came back").toBeLessThan(ANSWER_WITHIN_MS);

    const rows = await rodeOut(own, runId, SETTLE_MS);
    expectWholeHistory(rows, before);

    await nextMessageAnswered(own, runId, agentId);
  }, 150_000);
});
