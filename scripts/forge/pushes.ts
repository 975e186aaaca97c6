/**
 * What a push sets off, worked out from the repository's branches before and after it: an
 * open pull request whose head moved gets `pull_request` synchronize, and the moved branches
 * other than the default one go to CI (ci.ts). Called before the push's answer ends, so a
 * client that pushes and then asks finds the check run already `in_progress`.
 */
import type { Ci } from "./ci";
import type { ForgeEvents } from "./events";
import { iso } from "./pull-state";
import { listRefs } from "./repos";
import type { ForgeState } from "./state";

export interface PushContext {
  state: ForgeState;
  root: string;
  events: ForgeEvents;
  ci: Ci;
  appSlug: string;
  /**
   * `repo branch sha` of the updates acted on: two pushes to one repository at once each see
   * the other's branch move, and only the first to look acts on it.
   */
  handled: Set<string>;
}

/** Branch → sha of the repository now. */
export async function branches(root: string, fullName: string): Promise<Map<string, string>> {
  const refs = await listRefs(root, fullName);
  return new Map(refs.filter((r) => r.ref.startsWith("refs/heads/")).map((r) => [r.ref.slice("refs/heads/".length), r.sha]));
}

/** Fires what the push from `before` to now means; `pusher` is who pushed (the App's bot for a token). */
export async function afterPush(ctx: PushContext, fullName: string, before: Map<string, string>, pusher: string): Promise<void> {
  const after = await branches(ctx.root, fullName);
  const moved = [...after]
    .filter(([branch, sha]) => before.get(branch) !== sha && !ctx.handled.has(`${fullName} ${branch} ${sha}`))
    .map(([branch, sha]) => ({ branch, sha }));
  for (const { branch, sha } of moved) ctx.handled.add(`${fullName} ${branch} ${sha}`);
  if (!moved.length) return;
  for (const { branch, sha } of moved) {
    for (const pull of ctx.state.pulls.of(fullName).filter((p) => p.state === "open" && p.head === branch)) {
      const previous = pull.head_sha;
      pull.head_sha = sha;
      pull.updated_at = iso(new Date());
      ctx.events.emit("pull_request", "synchronize", fullName, pusher, {
        number: pull.number,
        before: previous,
        after: sha,
        pull_request: ctx.events.pullRequest(pull),
      });
    }
  }
  const defaultBranch = ctx.state.repositories.get(fullName)?.default_branch;
  await ctx.ci.pushed(
    fullName,
    moved.filter((update) => update.branch !== defaultBranch),
  );
}
