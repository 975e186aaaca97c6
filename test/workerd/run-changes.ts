import { env } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { openDatabase } from "../../core/db/client";
import { runs } from "../../core/db/schema";
import type { RepoChange } from "../../core/repos/types";
import { newAgent } from "./agents";
import { call, seedGuild } from "./seed";

/** One repository's entry of metadata.repos, as a run's end checkpoint records it. */
export const change = (name: string, patch: Partial<RepoChange> = {}): RepoChange => ({
  name,
  branch: "main",
  head_sha: "1111111111111111111111111111111111111111",
  start_sha: "2222222222222222222222222222222222222222",
  end_sha: "3333333333333333333333333333333333333333",
  files_changed: 2,
  insertions: 10,
  deletions: 3,
  ...patch,
});

/** Writes the run's metadata.repos as its end checkpoint would. */
export async function recordRepos(runId: string, repos: RepoChange[]) {
  const { db, close } = openDatabase(env);
  try {
    await db
      .update(runs)
      .set({ metadata: sql`${runs.metadata} || ${JSON.stringify({ repos })}::jsonb` })
      .where(eq(runs.id, runId));
  } finally {
    await close();
  }
}

/** A coding agent's run whose end checkpoint recorded two repositories ("app" and "docs"). */
export async function recordedRun() {
  const { token, guildId } = await seedGuild();
  const agentId = (await newAgent(token, guildId, { coding: true })).id;
  const runId = (await call("POST", `/api/agents/${agentId}/runs`, { token, body: {} })).json.id as string;
  const repos = [change("app"), change("docs", { branch: null, files_changed: 1, insertions: 0, deletions: 4 })];
  await recordRepos(runId, repos);
  return { token, guildId, agentId, runId, repos };
}
