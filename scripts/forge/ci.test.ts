/**
 * The forge's CI (ISSUE-33) with the real container engine and the lite image: a pushed
 * `.forge/ci.sh` runs in a throwaway container without network and posts a check run (seen
 * through the Checks API and the check_run / check_suite webhooks); a time limit ends in
 * timed_out; a commit without the script gets no check run. Skipped, saying why, where no
 * engine or no lite image answers (the stack's first start builds the image).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CI_IMAGE, engineProblem } from "./ci";
import { type Forge, startForge } from "./server";
import { admin, appJwt, appKeyPair, hookReceiver, isEvent, pushFiles, type ReceivedHook } from "./test-support";

const problem = await engineProblem(CI_IMAGE);
if (problem) console.warn(`[forge ci tests] skipped: ${problem}`);

const APP_ID = "3434";
const keys = appKeyPair();
let forge: Forge;
let receiver: Awaited<ReturnType<typeof hookReceiver>>;
let token: string;

beforeAll(async () => {
  if (problem) return;
  receiver = await hookReceiver();
  forge = await startForge({ appId: APP_ID, publicKeyPem: keys.publicKeyPem, webhook: { url: receiver.url, secret: "s" }, log: () => {} });
  expect((await admin(forge.adminUrl, "POST", "/repos", { full_name: "acme/ci", private: true })).status).toBe(201);
  const installation = (await admin(forge.adminUrl, "POST", "/installations", { account: "acme", repositories: ["ci"] })).json.id;
  const res = await fetch(`${forge.apiUrl}/app/installations/${installation}/access_tokens`, {
    method: "POST",
    headers: { authorization: `Bearer ${appJwt(keys.privateKey, { iss: APP_ID })}` },
  });
  token = ((await res.json()) as { token: string }).token;
});
afterAll(async () => {
  await forge?.close();
  await receiver?.close();
});

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${forge.apiUrl}${path}`, {
    method,
    headers: { authorization: `token ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as any };
}

const completed = (sha: string) => (hook: ReceivedHook) => isEvent("check_run", "completed")(hook) && hook.json.check_run.head_sha === sha;

describe.skipIf(problem)("ISSUE-33: CI of the local forge", () => {
  it("ISSUE-33: a ci.sh that exits 1 then a push that fixes it give a failure then a success check run, with the script's output in the run's text", async () => {
    const failing = 'echo "running the tests"; ls -A; sleep 2; echo "FAIL: adds two numbers" >&2; exit 1\n';
    const red = await pushFiles(forge.gitUrl, "acme/ci", token, "factory/task/ACME-1/a1", { ".forge/ci.sh": failing });
    // The run exists, in progress, as soon as the push is answered.
    const pending = await api("GET", `/repos/acme/ci/commits/${red}/check-runs`);
    expect(pending.json.total_count).toBe(1);
    expect(pending.json.check_runs[0]).toMatchObject({ name: "ci", head_sha: red, status: "in_progress", conclusion: null });
    const pull = await api("POST", "/repos/acme/ci/pulls", { title: "Fix", head: "factory/task/ACME-1/a1", base: "main" });
    expect(pull.status).toBe(201);
    const created = await receiver.next((h) => isEvent("check_run", "created")(h) && h.json.check_run.head_sha === red);
    expect(created.json.check_run).toMatchObject({ name: "ci", status: "in_progress", check_suite: { head_branch: "factory/task/ACME-1/a1" } });

    const failed = await receiver.next(completed(red), 60_000);
    expect(failed.json).toMatchObject({
      action: "completed",
      sender: { login: "guilds-forge[bot]", type: "Bot" },
      check_run: {
        name: "ci",
        status: "completed",
        conclusion: "failure",
        output: { title: "ci.sh exited 1" },
        check_suite: { head_branch: "factory/task/ACME-1/a1" },
      },
    });
    expect(failed.json.check_run.output.summary).toMatch(/^Exit status 1 after [\d.]+ s\.$/);
    expect(failed.json.check_run.output.text).toContain("running the tests");
    expect(failed.json.check_run.output.text).toContain("FAIL: adds two numbers");
    // The container saw the commit and nothing else: the repository's files, in a fresh folder.
    expect(failed.json.check_run.output.text).toContain(".forge\nREADME.md\n");
    expect(failed.json.check_run.pull_requests).toEqual([
      expect.objectContaining({ number: pull.json.number, head: { ref: "factory/task/ACME-1/a1", sha: red }, base: { ref: "main" } }),
    ]);
    const suite = await receiver.next((h) => isEvent("check_suite", "completed")(h) && h.json.check_suite.head_sha === red);
    expect(suite.json.check_suite).toMatchObject({
      head_branch: "factory/task/ACME-1/a1",
      status: "completed",
      conclusion: "failure",
      pull_requests: [{ number: pull.json.number }],
    });

    const green = await pushFiles(forge.gitUrl, "acme/ci", token, "factory/task/ACME-1/a1", { ".forge/ci.sh": 'echo "all 3 tests pass"\n' });
    const synchronize = await receiver.next((h) => isEvent("pull_request", "synchronize")(h) && h.json.after === green);
    expect(synchronize.json.pull_request.head.sha).toBe(green);
    const passed = await receiver.next(completed(green), 60_000);
    expect(passed.json.check_run).toMatchObject({ conclusion: "success", output: { title: "ci.sh exited 0" } });
    expect(passed.json.check_run.output.text).toContain("all 3 tests pass");

    // The Checks API, by branch and by sha, in GitHub's shapes.
    const byBranch = await api("GET", "/repos/acme/ci/commits/factory/task/ACME-1/a1/check-runs");
    expect(byBranch.json.total_count).toBe(1);
    const run = byBranch.json.check_runs[0];
    expect(run).toMatchObject({
      name: "ci",
      head_sha: green,
      status: "completed",
      conclusion: "success",
      output: { title: "ci.sh exited 0" },
      app: { slug: "guilds-forge" },
      pull_requests: [{ number: pull.json.number, head: { ref: "factory/task/ACME-1/a1", sha: green }, base: { ref: "main" } }],
    });
    for (const field of ["id", "started_at", "completed_at", "html_url", "details_url"]) expect(run[field]).toBeTruthy();
    expect(typeof run.check_suite.id).toBe("number");
    expect((await api("GET", `/repos/acme/ci/check-runs/${run.id}`)).json).toEqual(run);
    const redRuns = await api("GET", `/repos/acme/ci/commits/${red}/check-runs`);
    expect(redRuns.json.check_runs.map((r: { conclusion: string }) => r.conclusion)).toEqual(["failure"]);
    const suites = await api("GET", `/repos/acme/ci/commits/${green}/check-suites`);
    expect(suites.json).toMatchObject({
      total_count: 1,
      check_suites: [{ id: run.check_suite.id, head_sha: green, status: "completed", conclusion: "success" }],
    });
    expect((await api("GET", "/repos/acme/ci/check-runs/999999")).status).toBe(404);
    expect((await api("GET", "/repos/acme/ci/commits/nowhere/check-runs")).status).toBe(422);
    const listed = await admin(forge.adminUrl, "GET", "/repos/acme/ci/check-runs?branch=factory/task/ACME-1/a1");
    expect(listed.json.check_runs.map((r: { conclusion: string }) => r.conclusion)).toEqual(["success", "failure"]);
  }, 120_000);

  it("ISSUE-33: attempt branches pushed at once each get exactly one check run, run side by side", async () => {
    const script = (i: number) => `echo "attempt ${i}"; exit ${i === 2 ? 0 : 1}\n`;
    const shas = await Promise.all([1, 2, 3].map((i) => pushFiles(forge.gitUrl, "acme/ci", token, `factory/task/ACME-2/a${i}`, { ".forge/ci.sh": script(i) })));
    const hooks = await Promise.all(shas.map((sha) => receiver.next(completed(sha), 60_000)));
    expect(hooks.map((h) => h.json.check_run.conclusion)).toEqual(["failure", "success", "failure"]);
    expect(hooks.map((h) => h.json.check_run.output.text.trim())).toEqual(["attempt 1", "attempt 2", "attempt 3"]);
    for (const sha of shas) expect((await api("GET", `/repos/acme/ci/commits/${sha}/check-runs?filter=all`)).json.total_count).toBe(1);
  }, 90_000);

  it("ISSUE-33: past the time limit the container is killed and the run is timed_out", async () => {
    expect((await admin(forge.adminUrl, "PUT", "/ci", { timeout_seconds: 2 })).json.timeout_seconds).toBe(2);
    try {
      const sha = await pushFiles(forge.gitUrl, "acme/ci", token, "slow", { ".forge/ci.sh": 'echo "started"; sleep 60; echo "never"\n' });
      const hook = await receiver.next(completed(sha), 60_000);
      expect(hook.json.check_run).toMatchObject({ conclusion: "timed_out", output: { title: "ci.sh timed out after 2 s" } });
      expect(hook.json.check_run.output.text).toContain("started");
      expect(hook.json.check_run.output.text).not.toContain("never");
    } finally {
      await admin(forge.adminUrl, "PUT", "/ci", { timeout_seconds: 300 });
    }
    expect((await admin(forge.adminUrl, "PUT", "/ci", { timeout_seconds: 0 })).json.message).toBe("timeout_seconds must be a whole number, 1 or more");
  }, 90_000);

  it("ISSUE-33: a script that tries the network fails: the container has none", async () => {
    const script = "set -e\ncurl -sS --max-time 5 http://1.1.1.1/ >/dev/null\necho reached the network\n";
    const sha = await pushFiles(forge.gitUrl, "acme/ci", token, "net", { ".forge/ci.sh": script });
    const hook = await receiver.next(completed(sha), 60_000);
    expect(hook.json.check_run.conclusion).toBe("failure");
    expect(hook.json.check_run.output.text).toMatch(/curl: \(\d+\)/);
    expect(hook.json.check_run.output.text).not.toContain("reached the network");
  }, 90_000);

  it("ISSUE-33: a commit without .forge/ci.sh, or a push to the default branch, gets no check run", async () => {
    const plain = await pushFiles(forge.gitUrl, "acme/ci", token, "plain", { "notes.txt": "no CI here\n" });
    expect((await api("GET", `/repos/acme/ci/commits/${plain}/check-runs`)).json).toEqual({ total_count: 0, check_runs: [] });
    const onMain = await pushFiles(forge.gitUrl, "acme/ci", token, "main", { ".forge/ci.sh": "exit 0\n" });
    expect((await api("GET", `/repos/acme/ci/commits/${onMain}/check-runs`)).json.total_count).toBe(0);
    expect((await api("GET", `/repos/acme/ci/commits/${onMain}/check-suites`)).json.total_count).toBe(0);
  }, 60_000);
});
