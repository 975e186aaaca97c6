import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { admin, git, remote, workDir } from "../../scripts/forge/test-support";
import { agentIdle, script, transcript } from "./agents";
import { api } from "./http";
import { removeSeenBoxes } from "./sandbox-box";

/**
 * The stack's local forge (issue 14, "A real forge for tests"): it serves git where the
 * Worker's GITHUB_GIT_URL points, to this machine and to the boxes on the engine's bridge.
 */
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  removeSeenBoxes();
});

async function publicRepo(): Promise<{ fullName: string; head: string }> {
  const fullName = `acme/site-${crypto.randomUUID().slice(0, 8)}`;
  const created = await admin(inject("forgeAdminUrl"), "POST", "/repos", { full_name: fullName, files: { "index.html": "<h1>site</h1>\n" } });
  expect(created.status).toBe(201);
  expect(created.json.clone_url).toBe(`${inject("forgeGitUrl")}/${fullName}.git`);
  const repo = await admin(inject("forgeAdminUrl"), "GET", `/repos/${fullName}`);
  return { fullName, head: repo.json.branches[0].sha };
}

describe("the stack's forge", () => {
  it("FORGE: the stack provides the forge's URLs, and its git base clones", async () => {
    expect(inject("forgeApiUrl")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api$/);
    const { fullName, head } = await publicRepo();
    const dir = join(workDir(), "clone");
    dirs.push(dir);
    await git(["clone", "--quiet", remote(inject("forgeGitUrl"), fullName), dir]);
    expect((await git(["rev-parse", "HEAD"], dir)).trim()).toBe(head);
  });

  it("FORGE: a coding agent's box reaches the forge's git (NEEDS the container engine and the sandbox images)", async () => {
    // The boxes reach this machine at the bridge's gateway: git is served there.
    const gateway = execFileSync("docker", ["network", "inspect", "bridge", "--format", "{{(index .IPAM.Config 0).Gateway}}"], { encoding: "utf8" }).trim();
    expect(new URL(inject("forgeGitUrl")).hostname).toBe(gateway);
    const { fullName, head } = await publicRepo();
    const guild = await api("POST", "/api/guilds", { body: { name: "Forge reach" } });
    const model = `forge-${crypto.randomUUID().slice(0, 8)}`;
    const agent = await api("POST", `/api/guilds/${guild.json.id}/agents`, { body: { name: "Coder", model, coding: true } });
    expect(agent.status, agent.text).toBe(201);
    const command = `GIT_TERMINAL_PROMPT=0 git ls-remote ${remote(inject("forgeGitUrl"), fullName)} refs/heads/main`;
    await script(model, [{ tool_calls: [{ name: "shell", arguments: { command } }] }, { content: "done" }]);
    const run = await api("POST", `/api/agents/${agent.json.id}/runs`, { body: { message: "look" } });
    expect(run.status, run.text).toBe(201);
    await agentIdle(agent.json.id, {}, 180_000);
    const tool = (await transcript(run.json.id)).find((r) => r.role === "tool");
    expect(String(tool?.payload.content)).toContain(`${head}\trefs/heads/main`);
  }, 240_000);
});
