import { describe, expect, it } from "vitest";
import { type Ancestry, checkPush, type PushPolicy } from "./check-push";
import { ZERO_ID } from "./pkt-line";

const id = (c: string) => c.repeat(40);
const TASK = "refs/heads/factory/task/APP-3";
const WIP = "refs/heads/factory/wip/APP-3";
const policy: PushPolicy = { taskBranch: "factory/task/APP-3", wipBranch: "factory/wip/APP-3", baseBranch: "main", allowForcePush: false };
const never: Ancestry = async () => false;
/** new (c) → b → a: a pack holding c and b, whose history leaves it at a. */
const pack = new Map([
  [id("c"), [id("b")]],
  [id("b"), [id("a")]],
]);

describe("checkPush", () => {
  it("TASK-017: the task branch and the WIP ref may be created and updated; the WIP ref rewritten and deleted", async () => {
    expect(await checkPush([{ old: ZERO_ID, new: id("c"), ref: TASK }], policy, never)).toEqual([]);
    expect(await checkPush([{ old: id("a"), new: id("c"), ref: TASK }], policy, never, pack)).toEqual([]);
    expect(await checkPush([{ old: id("d"), new: id("e"), ref: WIP }], policy, never)).toEqual([]);
    expect(await checkPush([{ old: id("d"), new: ZERO_ID, ref: WIP }], policy, never)).toEqual([]);
  });

  it("TASK-017: the base branch, other branches, tags and the task branch's deletion are refused", async () => {
    const refused = async (ref: string, old = id("a"), next = id("b")) => (await checkPush([{ old, new: next, ref }], policy, never))[0]?.reason;
    expect(await refused("refs/heads/main")).toMatch(/base branch/);
    expect(await refused("refs/heads/factory/task/APP-4")).toMatch(/only factory\/task\/APP-3 and factory\/wip\/APP-3/);
    expect(await refused("refs/tags/v1", ZERO_ID)).toMatch(/only/);
    expect(await refused("refs/heads/factory/task/APP-3/x")).toMatch(/only/);
    expect(await refused(TASK, id("a"), ZERO_ID)).toMatch(/may not be deleted/);
    expect(await refused(WIP, ZERO_ID, ZERO_ID)).toMatch(/nothing to delete/);
    // One refused command refuses the push; the others are named by the report as atomic failures.
    const both = await checkPush(
      [
        { old: ZERO_ID, new: id("c"), ref: TASK },
        { old: id("a"), new: id("b"), ref: "refs/heads/main" },
      ],
      policy,
      never,
    );
    expect(both).toEqual([{ ref: "refs/heads/main", reason: expect.stringMatching(/base branch/) }]);
    expect(
      (
        await checkPush(
          [
            { old: ZERO_ID, new: id("c"), ref: WIP },
            { old: ZERO_ID, new: id("c"), ref: WIP },
          ],
          policy,
          never,
        )
      )[0]?.reason,
    ).toMatch(/twice/);
  });

  it("TASK-017: a task branch update is a fast-forward when the walk reaches old, or the forge knows old below where it leaves the pack", async () => {
    const asked: string[][] = [];
    const forge: Ancestry = async (ancestor, commit) => {
      asked.push([ancestor, commit]);
      return ancestor === id("f") && commit === id("a");
    };
    expect(await checkPush([{ old: id("b"), new: id("c"), ref: TASK }], policy, forge, pack)).toEqual([]);
    expect(asked).toEqual([]);
    expect(await checkPush([{ old: id("f"), new: id("c"), ref: TASK }], policy, forge, pack)).toEqual([]);
    expect(asked).toEqual([[id("f"), id("a")]]);
    // Rewritten history: the walk leaves the pack at a commit old is not an ancestor of.
    const rewritten = await checkPush([{ old: id("9"), new: id("c"), ref: TASK }], policy, forge, pack);
    expect(rewritten).toEqual([{ ref: TASK, reason: expect.stringMatching(/^non-fast-forward/) }]);
    // Nothing in the pack at all (a push of a commit the forge has): the forge is asked about new itself.
    expect(await checkPush([{ old: id("f"), new: id("a"), ref: TASK }], policy, forge)).toEqual([]);
    // Allowed force pushes skip the check.
    expect(await checkPush([{ old: id("9"), new: id("c"), ref: TASK }], { ...policy, allowForcePush: true }, forge, pack)).toEqual([]);
  });

  it("TASK-017: an ancestry question that fails, or a history with too many ways out of the pack, is a clear refusal", async () => {
    const failing: Ancestry = async () => {
      throw new Error("forge down");
    };
    const [refusal] = await checkPush([{ old: id("f"), new: id("c"), ref: TASK }], policy, failing, pack);
    expect(refusal?.reason).toMatch(/could not be checked against the forge/);
    const octopus = new Map([[id("c"), Array.from({ length: 20 }, (_, i) => i.toString(16).padStart(40, "e"))]]);
    expect((await checkPush([{ old: id("f"), new: id("c"), ref: TASK }], policy, never, octopus))[0]?.reason).toMatch(/too many/);
  });
});
