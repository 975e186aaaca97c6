import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../core/db/client";
import { replaceFileChanges } from "../../core/db/file-changes";
import { agents } from "../../core/db/schema";
import type { FileChangeRow } from "../../core/repos/file-changes";
import type { RepoChange } from "../../core/repos/types";
import { newAgent } from "../../test/workerd/agents";
import { change, recordedRun, recordRepos } from "../../test/workerd/run-changes";
import { call, seedGuild } from "../../test/workerd/seed";

/**
 * A run's changes (REPO-019..025). The Workers test pool starts no container engine, so the
 * diff itself answers sandbox.unavailable here; the real diff is covered end to end in real
 * containers. metadata.repos is written as the end checkpoint would write it.
 */

const unknownId = "00000000-0000-4000-8000-000000000000";

describe("run changes (REPO-021..025, SBX-039)", () => {
  let token: string;
  let guildId: string;
  let agentId: string;
  let runId: string;
  let repos: RepoChange[];

  beforeAll(async () => {
    ({ token, guildId, agentId, runId, repos } = await recordedRun());
  }, 60_000);

  it("OP-REPO-3: a run that recorded no repository has no changes and no repos in its payload", async () => {
    const plain = (await call("POST", `/api/agents/${agentId}/runs`, { token, body: {} })).json.id;
    const res = await call("GET", `/api/runs/${plain}/changes`, { token });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: [] });
    expect((await call("GET", `/api/runs/${plain}`, { token })).json).not.toHaveProperty("repos");
  });

  it("REPO-021 / REPO-019: the changes list and the run payload carry metadata.repos, the diffstat per repository", async () => {
    const res = await call("GET", `/api/runs/${runId}/changes`, { token });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: repos.map((repo) => ({ ...repo, files: [] })) });
    const run = await call("GET", `/api/runs/${runId}`, { token });
    expect(run.json.repos).toEqual(repos);
  });

  it("RUN-019: the changes list carries each repository's files from file_changes, attributed to the run and a tool call, without waking a box", async () => {
    const { token, runId, repos } = await recordedRun();
    const file = (path: string, operation: FileChangeRow["operation"], patch: Partial<FileChangeRow> = {}): FileChangeRow => ({
      repository: "app",
      path,
      operation,
      old_path: null,
      insertions: 1,
      deletions: 0,
      ...patch,
    });
    const { db, close } = openDatabase(env);
    try {
      // Generation 1's checkpoint: two files; generation 2's: one unchanged, one changed further, one new.
      await replaceFileChanges(db, runId, [file("src/a.ts", "modified"), file("docs/old.md", "deleted", { insertions: 0, deletions: 7 })], "call_1");
      await replaceFileChanges(
        db,
        runId,
        [
          file("src/a.ts", "modified", { insertions: 3 }),
          file("docs/old.md", "deleted", { insertions: 0, deletions: 7 }),
          file("img/logo.png", "added", { insertions: null, deletions: null }),
          file("README.md", "renamed", { repository: "docs", old_path: "readme.txt", insertions: 0, deletions: 0 }),
          // A repository the run did not record in metadata.repos is not listed.
          file("x", "added", { repository: "gone" }),
        ],
        "call_2",
      );
    } finally {
      await close();
    }
    const res = await call("GET", `/api/runs/${runId}/changes`, { token });
    expect(res.status).toBe(200);
    expect(res.json.data.map((r: { name: string }) => r.name)).toEqual(["app", "docs"]);
    expect(res.json.data[0]).toEqual({
      ...repos[0],
      files: [
        { path: "docs/old.md", change: "deleted", old_path: null, insertions: 0, deletions: 7, tool_call_id: "call_1" },
        { path: "img/logo.png", change: "added", old_path: null, insertions: null, deletions: null, tool_call_id: "call_2" },
        { path: "src/a.ts", change: "modified", old_path: null, insertions: 3, deletions: 0, tool_call_id: "call_2" },
      ],
    });
    expect(res.json.data[1].files).toEqual([
      { path: "README.md", change: "renamed", old_path: "readme.txt", insertions: 0, deletions: 0, tool_call_id: "call_2" },
    ]);
  }, 60_000);

  it("REPO-021: an unknown run, or another organisation's, is 404 run.not_found on both routes", async () => {
    const other = await seedGuild("Other org");
    for (const path of [`/api/runs/${unknownId}/changes`, `/api/runs/${runId}/changes/app/diff`, "/api/runs/not-a-uuid/changes"]) {
      const res = await call("GET", path, { token: path.includes(runId) ? other.token : token });
      expect(res.status, path).toBe(404);
      expect(res.json.error.code).toBe("run.not_found");
    }
    expect((await call("GET", `/api/runs/${runId}/changes`, { token: other.token })).status).toBe(404);
  });

  it("REPO-023: a repository the run did not record is 404 repository.not_recorded, its name URL-decoded", async () => {
    for (const name of ["web", "my repo"]) {
      const res = await call("GET", `/api/runs/${runId}/changes/${encodeURIComponent(name)}/diff`, { token });
      expect(res.status, name).toBe(404);
      expect(res.json.error.code).toBe("repository.not_recorded");
      expect(res.json.error.message).toContain(JSON.stringify(name));
    }
  });

  it("SBX-039 / REPO-024: without a container engine the diff is 503 sandbox.unavailable with the reason, never a 500", async () => {
    const res = await call("GET", `/api/runs/${runId}/changes/app/diff`, { token });
    expect(res.status).toBe(503);
    expect(res.json.error.code).toBe("sandbox.unavailable");
    expect(res.json.error.message.length).toBeGreaterThan(10);
    // As the CLI tab would: the box's state now says why it is unavailable.
    const state = await call("GET", `/api/agents/${agentId}/sandbox`, { token });
    expect(state.json).toMatchObject({ box: "standard", status: "unavailable" });
  });

  it("SBX-039: an archived agent's box does not come up for a diff (409 agent.archived)", async () => {
    const archived = (await newAgent(token, guildId, { coding: true })).id;
    const run = (await call("POST", `/api/agents/${archived}/runs`, { token, body: {} })).json.id;
    await recordRepos(run, [change("app")]);
    const { db, close } = openDatabase(env);
    await db.update(agents).set({ archivedAt: new Date() }).where(eq(agents.id, archived)).finally(close);
    const res = await call("GET", `/api/runs/${run}/changes/app/diff`, { token });
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe("agent.archived");
  });
});
