/**
 * The Checks API client against the local forge (ISSUE-33): a branch's head, a commit's check
 * runs as the forge's CI posts them (with the container engine and the lite image; those
 * cases are skipped, saying why, where none answers), and refusals that never carry the token.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CI_IMAGE, engineProblem } from "../../scripts/forge/ci";
import { type Forge, startForge } from "../../scripts/forge/server";
import { admin, appKeyPair, pushBranch, pushFiles } from "../../scripts/forge/test-support";
import { ChecksApiError, githubChecks } from "./checks-api";
import { CHECKS_TOKEN_PERMISSIONS, GitHubApp } from "./client";

const keys = appKeyPair();
const privateKeyPem = keys.privateKey.export({ type: "pkcs1", format: "pem" }) as string;
const problem = await engineProblem(CI_IMAGE);
if (problem) console.warn(`[checks client CI tests] skipped: ${problem}`);

let forge: Forge;
let installationId: number;
/** A token that reads checks; one that writes pull requests only; one for pushing. */
let checksToken: string;
let pullsToken: string;
const app = () => new GitHubApp({ apiUrl: forge.apiUrl, appId: "4243", privateKeyPem });

beforeAll(async () => {
  forge = await startForge({ appId: "4243", publicKeyPem: keys.publicKeyPem, log: () => {} });
  await admin(forge.adminUrl, "POST", "/repos", { full_name: "acme/checked", private: true });
  installationId = (await admin(forge.adminUrl, "POST", "/installations", { account: "acme", repositories: ["checked"] })).json.id;
  checksToken = (await app().mintRepositoryToken(installationId, "acme/checked", CHECKS_TOKEN_PERMISSIONS)).token;
  pullsToken = (await app().mintRepositoryToken(installationId, "acme/checked")).token;
});
afterAll(() => forge?.close());

const failure = (pending: Promise<unknown>) =>
  pending.then(
    () => expect.fail("resolved"),
    (error: unknown) => error as ChecksApiError,
  );

describe("the Checks API client (ISSUE-33)", () => {
  it("ISSUE-33: a task branch's head is its tip; a branch that does not exist is null; a commit without CI has no check runs", async () => {
    const tip = await pushBranch(forge.gitUrl, "acme/checked", pullsToken, "factory/task/CHECKED-1");
    const checks = githubChecks({ apiUrl: forge.apiUrl, token: checksToken });
    expect(await checks.branchHead("acme/checked", "factory/task/CHECKED-1")).toBe(tip);
    expect(await checks.branchHead("acme/checked", "factory/task/CHECKED-404")).toBeNull();
    expect(await checks.listCheckRuns("acme/checked", tip)).toEqual([]);
  });

  it("ISSUE-33: a token without checks read is refused with the forge's status, never the token", async () => {
    const tip = await pushBranch(forge.gitUrl, "acme/checked", pullsToken, "factory/task/CHECKED-2");
    const error = await failure(githubChecks({ apiUrl: forge.apiUrl, token: pullsToken }).listCheckRuns("acme/checked", tip));
    expect(error).toBeInstanceOf(ChecksApiError);
    expect(error.status).toBe(403);
    expect(error.message).toContain("checks read");
    expect(`${error.message} ${JSON.stringify(error)}`).not.toContain(pullsToken);
    const down = await failure(githubChecks({ apiUrl: "http://127.0.0.1:9", token: checksToken }).branchHead("acme/checked", "main"));
    expect([down.status, down.message.includes(checksToken)]).toEqual([null, false]);
  });

  it.skipIf(problem)(
    "ISSUE-33: the forge's CI run is read in progress, then completed with its conclusion and output",
    async () => {
      const script = 'echo "running the tests"; echo "FAIL: adds two numbers" >&2; exit 1\n';
      const sha = await pushFiles(forge.gitUrl, "acme/checked", pullsToken, "factory/task/CHECKED-3", { ".forge/ci.sh": script });
      const checks = githubChecks({ apiUrl: forge.apiUrl, token: checksToken });
      const deadline = Date.now() + 60_000;
      let runs = await checks.listCheckRuns("acme/checked", sha);
      expect(runs).toHaveLength(1);
      while (runs[0]!.status !== "completed" && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        runs = await checks.listCheckRuns("acme/checked", sha);
      }
      expect(runs[0]).toMatchObject({ name: "ci", status: "completed", conclusion: "failure", html_url: expect.any(String) });
      expect(runs[0]!.output.text).toContain("FAIL: adds two numbers");
    },
    90_000,
  );
});
