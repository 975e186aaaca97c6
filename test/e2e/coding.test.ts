import { describe, expect, it } from "vitest";
import { admin, claimInstallation } from "../../scripts/forge/test-support";
import { transcript } from "./agents";
import { agentWithSecret, containerStack, generate } from "./container-stack";
import { boxesWithVariable } from "./sandbox-box";

/**
 * Coding agents on real containers against the stack's local forge: the platform mints
 * installation tokens, the box clones with them, the agent edits, commits and pushes with
 * shell, and the run records its checkpoints and changes.
 */
const boxes = containerStack({});
const { call } = boxes;
const forge = (method: string, path: string, body?: unknown) => admin(boxes.stack.forge!.adminUrl, method, path, body);

type Agent = Awaited<ReturnType<typeof agentWithSecret>>;

/** A private repository on the forge, an installation reaching it, its connection and the guild's repository. */
async function codingSetup(options: { connect?: boolean } = {}) {
  const agent = await agentWithSecret(call, "Coder", { coding: true });
  const owner = `acme-${crypto.randomUUID().slice(0, 8)}`;
  const fullName = `${owner}/app`;
  expect((await forge("POST", "/repos", { full_name: fullName, private: true, files: { "README.md": "one\n" } })).status).toBe(201);
  const installation = await forge("POST", "/installations", { account: owner, repositories: [fullName] });
  expect(installation.status, JSON.stringify(installation.json)).toBe(201);
  let connectionId: string | undefined;
  if (options.connect !== false) {
    const { connection } = await claimInstallation(call, boxes.stack.forge!.adminUrl, { account: owner });
    expect(connection.status, JSON.stringify(connection.json)).toBe(201);
    expect(connection.json.installation_id).toBe(installation.json.id);
    connectionId = connection.json.id;
  }
  const repository = await call("POST", `/api/guilds/${agent.guildId}/repositories`, {
    full_name: fullName,
    ...(connectionId ? { connection_id: connectionId } : {}),
  });
  expect(repository.status, repository.text).toBe(201);
  return { agent, owner, fullName, installationId: installation.json.id as number, repositoryId: repository.json.id as string };
}

/** One generation running these shell commands in order; the run, its rows and each command's output. */
async function shell(agent: Agent, commands: string[], runId?: string) {
  const ran = await generate(
    boxes,
    agent,
    commands.map((command) => ({ name: "shell", arguments: { command } })),
    runId,
  );
  return { ...ran, outputs: ran.results };
}

const tokensMinted = async () => (await forge("GET", "/tokens")).json.tokens as Array<{ token: string; installation_id: number }>;

describe("coding agents on real containers and the local forge", () => {
  it("REPO-001 / REPO-002 / REPO-003 / REPO-005 / REPO-006 / REPO-009 / REPO-010 / REPO-011 / REPO-013 / REPO-026 / REPO-027 / REPO-030: the box clones with a minted token; the agent commits with the trailers and pushes", async () => {
    const { agent, fullName, installationId } = await codingSetup();
    const { runId, rows, outputs, run } = await shell(agent, [
      "pwd; git config user.name; git config user.email; cat README.md",
      "cat /run/guilds/git-tokens.json",
      "git checkout -q -b feature && echo two >> README.md && git commit -qam 'Add a line' && git push -q origin feature 2>&1; echo pushed=$?",
    ]);
    expect(run.errors).toEqual([]);
    // REPO-011: commands start in the single repository; REPO-005: the agent's identity.
    expect(outputs[0]).toContain(`/home/agent/repos/app\nCoder\n${agent.agentId}@agents.guilds.run\none\n`);
    // REPO-003: the tokens file is outside the workspace and its token is redacted wherever it appears.
    const minted = (await tokensMinted()).filter((t) => t.installation_id === installationId);
    expect(minted.length).toBeGreaterThan(0);
    expect(outputs[1]).toContain("[REDACTED:GITHUB_INSTALLATION_TOKEN]");
    expect(outputs[2]).toContain("pushed=0");
    // REPO-026 / REPO-027: the pushed commit carries the trailers.
    const commits = await forge("GET", `/repos/${fullName}/commits?ref=feature&limit=1`);
    expect(commits.json.commits[0].message).toContain(`Guild-Run: ${runId}`);
    expect(commits.json.commits[0].message).toContain(`Guild-Agent: ${agent.agentId}`);
    expect(commits.json.commits[0].author.email).toBe(`${agent.agentId}@agents.guilds.run`);
    // REPO-013: State names the repository, where it is and its default branch.
    expect(String(rows[0]!.payload.content)).toContain("app: /home/agent/repos/app (default branch main)");
    const everything = JSON.stringify(await transcript(runId, boxes.target)) + JSON.stringify(run) + boxes.output.join("\n");
    for (const { token } of minted) expect(everything).not.toContain(token);
  }, 300_000);

  it("REPO-014 / REPO-015 / REPO-016 / REPO-017 / REPO-018 / REPO-019 / REPO-021 / REPO-022 / REPO-024 / REPO-025 / REPO-029 / RUN-023 / SEC-018: checkpoints record what the run changed, uncommitted files included; the diff comes from the box, redacted", async () => {
    const { agent, fullName } = await codingSetup();
    const first = await shell(agent, [`echo two >> README.md && echo "$${agent.secretName}" > leak.txt && git add leak.txt`]);
    expect(first.run.errors).toEqual([]);
    // REPO-018 / REPO-019: the diffstat start..end, uncommitted and untracked changes included.
    expect(first.run.repos).toEqual([
      expect.objectContaining({
        name: "app",
        branch: "main",
        files_changed: 2,
        insertions: 2,
        deletions: 0,
        start_sha: expect.any(String),
        end_sha: expect.any(String),
      }),
    ]);
    const changes = await call("GET", `/api/runs/${first.runId}/changes`);
    expect(changes.status).toBe(200);
    // RUN-019: each file from file_changes, attributed to the run's tool call that changed it.
    const shellCall = first.rows.findLast((r) => r.role === "tool")?.metadata.tool_call_id;
    expect(shellCall).toEqual(expect.any(String));
    const file = (path: string, change: string) => ({ path, change, old_path: null, insertions: 1, deletions: 0, tool_call_id: shellCall });
    expect(changes.json.data).toEqual(first.run.repos.map((repo: object) => ({ ...repo, files: [file("README.md", "modified"), file("leak.txt", "added")] })));
    const diff = await call("GET", `/api/runs/${first.runId}/changes/app/diff`);
    expect(diff.status, diff.text).toBe(200);
    expect(diff.json.diff).toContain("+two");
    expect(diff.json.diff).toContain(`+[REDACTED:${agent.secretName}]`);
    expect(diff.text).not.toContain(agent.value);
    expect(diff.json.truncated).toBe(false);
    // REPO-016: the real index and branch are untouched: leak.txt is still only staged, README.md still modified.
    const status = await shell(agent, ["git status --porcelain; git rev-parse --abbrev-ref HEAD"], first.runId);
    expect(status.outputs[0]).toContain("M README.md\nA  leak.txt\nmain\n");
    // REPO-014 / REPO-015: the start stays; the end is taken again after each generation.
    expect(status.run.repos[0].start_sha).toBe(first.run.repos[0].start_sha);
    expect(status.run.repos[0]).toMatchObject({ files_changed: 2, insertions: 2 });
    // REPO-017: the run's refs are local: pushing a branch never carries them.
    await shell(agent, ["git commit -qam wip && git push -q origin HEAD:wip 2>&1; git for-each-ref refs/guild --format='%(refname)'"], first.runId);
    const refs = (await forge("GET", `/repos/${fullName}`)).json.refs as Array<{ ref: string }>;
    expect(refs.map((r) => r.ref).filter((r) => r.startsWith("refs/guild"))).toEqual([]);
  }, 300_000);

  it("REPO-012: a token within 10 minutes of its expiry is minted again before each shell command", async () => {
    const { agent, installationId } = await codingSetup();
    await forge("PUT", "/token-ttl", { seconds: 300 });
    try {
      const before = (await tokensMinted()).filter((t) => t.installation_id === installationId).length;
      const { outputs } = await shell(agent, ["git ls-remote -q origin >/dev/null && echo reached", "git fetch -q origin && echo fetched"]);
      expect(outputs).toEqual([expect.stringContaining("reached"), expect.stringContaining("fetched")]);
      // One at the generation's start, one before each of the two commands.
      expect((await tokensMinted()).filter((t) => t.installation_id === installationId).length - before).toBe(3);
    } finally {
      await forge("PUT", "/token-ttl", { seconds: 3600 });
    }
  }, 300_000);

  it("REPO-004 / ERR-012: a revoked installation, or one that no longer reaches a repository, is repository.token naming the repository", async () => {
    const removed = await codingSetup();
    expect((await forge("DELETE", `/installations/${removed.installationId}/repositories/${removed.fullName}`)).status).toBeLessThan(300);
    const unreachable = await shell(removed.agent, ["echo never"]);
    expect(unreachable.run.errors).toEqual([
      expect.objectContaining({ code: "repository.token", message: `The GitHub installation no longer reaches ${removed.fullName}` }),
    ]);
    expect(unreachable.rows.filter((r) => r.role === "assistant")).toEqual([]);

    const revoked = await codingSetup();
    expect((await forge("DELETE", `/installations/${revoked.installationId}`)).status).toBeLessThan(300);
    const refused = await shell(revoked.agent, ["echo never"]);
    expect(refused.run.errors[0]).toMatchObject({ code: "repository.token" });
    expect(refused.run.errors[0].message).toContain(revoked.fullName);
  }, 300_000);

  it("REPO-008 / ERR-013 / ERR-007: a private repository without a connection fails to clone, saying it was cloned anonymously", async () => {
    const { agent, fullName } = await codingSetup({ connect: false });
    const { run } = await shell(agent, ["echo never"]);
    expect(run.errors).toEqual([expect.objectContaining({ code: "repository.clone" })]);
    expect(run.errors[0].message).toContain(`Cloning ${fullName} failed`);
    expect(run.errors[0].message).toContain("cloned anonymously");
  }, 300_000);

  it("REPO-007: a clone whose origin moved on the same host is pointed at the repository's current URL", async () => {
    const setup = await codingSetup();
    await shell(setup.agent, ["git remote get-url origin"]);
    // The repository moves to another owner: the guild's repository is replaced by the new name.
    const owner = `newco-${crypto.randomUUID().slice(0, 8)}`;
    const moved = `${owner}/app`;
    expect((await forge("POST", "/repos", { full_name: moved, private: true, files: { "README.md": "one\n" } })).status).toBe(201);
    const { connection } = await claimInstallation(call, boxes.stack.forge!.adminUrl, { account: owner, repositories: [moved] });
    expect((await call("DELETE", `/api/repositories/${setup.repositoryId}`)).status).toBe(204);
    expect((await call("POST", `/api/guilds/${setup.agent.guildId}/repositories`, { full_name: moved, connection_id: connection.json.id })).status).toBe(201);
    const { outputs, run } = await shell(setup.agent, ["git remote get-url origin"]);
    expect(run.errors).toEqual([]);
    expect(outputs[0]).toContain(`/${moved}.git`);
    expect(boxesWithVariable(setup.agent.secretName)).toHaveLength(1);
  }, 300_000);
});
