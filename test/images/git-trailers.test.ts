/**
 * The commit trailer hook of the standard box's git template (REPO-026..028): commits made
 * with GUILD_RUN_ID and GUILD_AGENT_ID set (as the shell tool sets them) carry Guild-Run and
 * Guild-Agent once, through amends and rebases; others carry none.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentShell, type Box, buildImages, dockerUnavailable, runBox } from "./boxes";

const unavailable = dockerUnavailable();
const RUN_ENV = { GUILD_RUN_ID: "run-1111", GUILD_AGENT_ID: "agent-aaaa" };
const REPO = "/home/agent/repos/app";

let box: Box;
const { sh } = agentShell(() => box);
/** The values of one trailer key in a commit's message, in order. */
const trailers = async (key: string, rev = "HEAD") =>
  (await sh(`git -C ${REPO} log -1 --format='%(trailers:key=${key},valueonly,separator=%x2C)' ${rev}`)).stdout.trim().split(",").filter(Boolean);

beforeAll(async () => {
  if (unavailable) return;
  await buildImages();
  box = await runBox("standard", { HOME: "/home/agent" });
  await sh(`guilds-code identity --name Agent --email agent@agents.guilds.run >/dev/null
    git init -q --bare -b main /srv/origin.git && git init -q -b main /tmp/seed && cd /tmp/seed && echo base > base.txt
    git add . && git commit -qm base && git push -q /srv/origin.git main
    guilds-code clone --url file:///srv/origin.git --dir app >/dev/null`);
}, 900_000);

afterAll(async () => {
  await box?.remove();
});

describe.skipIf(unavailable)("commit trailers", () => {
  it("REPO-028: clones and git init take the hook from the image's template", async () => {
    const hooks = await sh(`ls ${REPO}/.git/hooks; git init -q /tmp/fresh && ls /tmp/fresh/.git/hooks; git config --system init.templateDir`);
    expect(hooks.stdout).toBe("prepare-commit-msg\nprepare-commit-msg\n/usr/share/guilds/git-template\n");
  });

  it("REPO-026/REPO-027: a commit made with GUILD_RUN_ID and GUILD_AGENT_ID carries both trailers after the message", async () => {
    await sh(`cd ${REPO} && echo one > one.txt && git add one.txt && git commit -qm 'Add one' -m 'Body text.'`, RUN_ENV);
    expect((await sh(`git -C ${REPO} log -1 --format=%B`)).stdout).toBe("Add one\n\nBody text.\n\nGuild-Run: run-1111\nGuild-Agent: agent-aaaa\n\n");
  });

  it("REPO-026: an amend or a rebase by the same run adds no second trailer; another run's amend adds its own run", async () => {
    await sh(`cd ${REPO} && git commit -q --amend --no-edit && git commit -q --amend -m "$(git log -1 --format=%B)"`, RUN_ENV);
    expect(await trailers("Guild-Run")).toEqual(["run-1111"]);
    expect(await trailers("Guild-Agent")).toEqual(["agent-aaaa"]);

    await sh(
      `cd ${REPO} && git checkout -q -b topic && echo two > two.txt && git add two.txt && git commit -qm 'Add two' -s
      git checkout -q main && echo other > other.txt && git add other.txt && git commit -qm 'Other' && git checkout -q topic && GIT_EDITOR=true git rebase -q main`,
      RUN_ENV,
    );
    // The rebased commit is new (its parent is main's) and its trailers are still one each.
    expect((await sh(`git -C ${REPO} log --format=%s main..topic && git -C ${REPO} rev-parse topic^ main`)).stdout).toMatch(/^Add two\n([0-9a-f]{40})\n\1\n$/);
    expect(await trailers("Guild-Run", "topic")).toEqual(["run-1111"]);
    expect(await trailers("Guild-Agent", "topic")).toEqual(["agent-aaaa"]);
    expect(await trailers("Signed-off-by", "topic")).toEqual(["Agent <agent@agents.guilds.run>"]);

    await sh(`cd ${REPO} && git commit -q --amend --no-edit`, { GUILD_RUN_ID: "run-2222", GUILD_AGENT_ID: "agent-aaaa" });
    expect(await trailers("Guild-Run")).toEqual(["run-1111", "run-2222"]);
    expect(await trailers("Guild-Agent")).toEqual(["agent-aaaa"]);
  });

  it("REPO-027/OP-REPO-10: without both variables (the CLI tab, a person) a commit has no trailers", async () => {
    for (const env of [{}, { GUILD_RUN_ID: "run-1111" }, { GUILD_AGENT_ID: "agent-aaaa" }] as Record<string, string>[]) {
      await sh(`cd ${REPO} && echo $RANDOM >> plain.txt && git add plain.txt && git commit -qm 'Plain'`, env);
      expect((await sh(`git -C ${REPO} log -1 --format=%B`)).stdout, JSON.stringify(env)).toBe("Plain\n\n");
    }
  });

  it("REPO-026: an empty message still aborts the commit, trailers or not", async () => {
    const head = (await sh(`git -C ${REPO} rev-parse HEAD`)).stdout;
    const empty = await sh(`cd ${REPO} && echo x >> plain.txt && git add plain.txt && git commit -q -m ''`, RUN_ENV, true);
    expect(empty.exitCode).not.toBe(0);
    expect(empty.stderr).toContain("empty commit message");
    expect((await sh(`git -C ${REPO} rev-parse HEAD`)).stdout).toBe(head);
  });

  it("REPO-028: a repository that sets its own core.hooksPath skips the hook", async () => {
    await sh(
      `cd ${REPO} && mkdir -p .own-hooks && git config core.hooksPath .own-hooks && echo y >> plain.txt && git add plain.txt && git commit -qm 'Own hooks'`,
      RUN_ENV,
    );
    expect((await sh(`git -C ${REPO} log -1 --format=%B`)).stdout).toBe("Own hooks\n\n");
  });
});
