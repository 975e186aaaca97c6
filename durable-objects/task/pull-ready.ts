/**
 * TASK-024: the draft pull request becomes ready for review, with the agent's summary as a
 * comment. One way for both who do it: a run's finalizing (finalize.ts) and, when the task
 * waited for its checks, their passing (ready-when-green.ts, forge/checks.ts).
 */
import type { ForgePlugin } from "../../core/github/forge-plugin";

export async function markPullRequestReady(forge: ForgePlugin, pull: { fullName: string; number: number }, summary: string): Promise<void> {
  // The summary first: a reviewer who sees the pull request ready finds it there already.
  if (summary.trim()) await forge.comment({ fullName: pull.fullName, number: pull.number, body: summary });
  await forge.markReady({ fullName: pull.fullName, number: pull.number, nodeId: "" });
}
