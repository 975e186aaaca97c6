/**
 * What a task's box may push (TASK-017): its task branch, fast-forward only unless the task
 * allows force pushes, and its WIP ref, rewritten at every run. Nothing else: not the base
 * branch, no other branch or tag, no deletion but the WIP ref's.
 */
import type { Command } from "./pkt-line";
import { ZERO_ID } from "./pkt-line";

export interface PushPolicy {
  /** `factory/task/<KEY>`, without `refs/heads/`. */
  taskBranch: string;
  /** `factory/wip/<KEY>`. */
  wipBranch: string;
  baseBranch: string;
  allowForcePush: boolean;
}

/** Whether `ancestor` is `commit` or one of its ancestors on the forge; false when unknown there. */
export type Ancestry = (ancestor: string, commit: string) => Promise<boolean>;

/** A refused command: git shows it as `! [remote rejected] <ref> (<reason>)`. */
export interface Refusal {
  ref: string;
  reason: string;
}

/** The walk leaves the pack at no more commits than this before it gives up. */
const MAX_EXITS = 16;

/** Refusals decided by the ref names alone; [] when every command may go on to the ancestry check. */
export function refsRefusals(commands: Command[], policy: PushPolicy): Refusal[] {
  const task = `refs/heads/${policy.taskBranch}`;
  const wip = `refs/heads/${policy.wipBranch}`;
  const refusals: Refusal[] = [];
  const seen = new Set<string>();
  for (const { ref, old, new: next } of commands) {
    let reason: string | null = null;
    if (seen.has(ref)) reason = "the ref is named twice";
    else if (ref === `refs/heads/${policy.baseBranch}`) reason = `the base branch is never pushed to; push ${policy.taskBranch}`;
    else if (ref !== task && ref !== wip) reason = `only ${policy.taskBranch} and ${policy.wipBranch} may be pushed`;
    else if (next === ZERO_ID && ref === task) reason = "the task branch may not be deleted";
    else if (next === ZERO_ID && old === ZERO_ID) reason = "nothing to delete";
    seen.add(ref);
    if (reason) refusals.push({ ref, reason });
  }
  return refusals;
}

/** The commands whose fast-forward must be proven: updates of the task branch when force pushes are not allowed. */
export function needsAncestry(commands: Command[], policy: PushPolicy): Command[] {
  if (policy.allowForcePush) return [];
  const task = `refs/heads/${policy.taskBranch}`;
  return commands.filter((c) => c.ref === task && c.old !== ZERO_ID && c.new !== ZERO_ID && c.old !== c.new);
}

/**
 * The push's refusals ([] = accepted). A task branch update is a fast-forward when the walk
 * from `new` through the pack's commits (`commits`: id → parents) reaches `old`, or when it
 * leaves the pack at a commit the forge knows `old` to be an ancestor of (`ancestry`).
 * Anything else, an unanswered ancestry question included, is refused.
 */
export async function checkPush(
  commands: Command[],
  policy: PushPolicy,
  ancestry: Ancestry,
  commits: ReadonlyMap<string, readonly string[]> = new Map(),
): Promise<Refusal[]> {
  const byRefs = refsRefusals(commands, policy);
  if (byRefs.length) return byRefs;
  const refusals: Refusal[] = [];
  for (const command of needsAncestry(commands, policy)) {
    const reason = await fastForward(command, commits, ancestry);
    if (reason) refusals.push({ ref: command.ref, reason });
  }
  return refusals;
}

/** Null when `command` is proven a fast-forward; the refusal's reason otherwise. */
async function fastForward(command: Command, commits: ReadonlyMap<string, readonly string[]>, ancestry: Ancestry): Promise<string | null> {
  const refused = "non-fast-forward: this task does not allow force pushes; fetch and rebase or merge";
  const exits = new Set<string>();
  const seen = new Set<string>([command.new]);
  const queue = [command.new];
  while (queue.length) {
    const id = queue.pop()!;
    if (id === command.old) return null;
    const parents = commits.get(id);
    if (!parents) {
      exits.add(id);
      continue;
    }
    for (const parent of parents) {
      if (!seen.has(parent)) {
        seen.add(parent);
        queue.push(parent);
      }
    }
  }
  if (exits.size > MAX_EXITS) return "the push's history could not be checked (too many merges of outside history)";
  for (const exit of exits) {
    try {
      if (await ancestry(command.old, exit)) return null;
    } catch {
      return "the push's history could not be checked against the forge; try again";
    }
  }
  return refused;
}
