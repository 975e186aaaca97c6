import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../stack/wrangler";
import { actionName, substitute, UnknownExpression, workflowJobs } from "./jobs";

const context = {
  "matrix.shard": "3",
  "secrets.CLOUDFLARE_API_TOKEN": "t",
  "secrets.CLOUDFLARE_ACCOUNT_ID": "a",
  "secrets.DATABASE_URL": "postgres://db",
  "secrets.SMOKE_TOKEN": "s",
  "secrets.SMOKE_AGENT_ID": "agent",
  "vars.DEPLOY_URL": "http://127.0.0.1:9",
  "github.event.workflow_run.head_sha": "abc123",
  "github.event.workflow_run.head_branch": "v1.2.3",
};
const workflow = (name: string) => readFileSync(join(ROOT, ".github/workflows", name), "utf8");

describe("the workflows' jobs as a dry run carries them out", () => {
  it("replaces expressions from the context and refuses one it has no value for", () => {
    // Written as GitHub writes them: `${{ … }}` is the workflow's syntax, not a template.
    const open = "${{";
    expect(substitute(`a ${open} matrix.shard }}/4 ${open}matrix.shard}}`, context)).toBe("a 3/4 3");
    expect(() => substitute(`${open} secrets.OTHER }}`, context)).toThrow(UnknownExpression);
  });

  it("reads ci.yml: the test job runs .ci/run with its shard, the images job builds both Dockerfiles", () => {
    const jobs = workflowJobs(workflow("ci.yml"), context);
    expect(jobs.map((job) => job.id)).toEqual(["test", "images"]);
    const test = jobs[0]!;
    expect(test.steps.at(-1)).toMatchObject({ run: "bash .ci/run", env: { CI: "true", CI_SHARD: "3/4" } });
    expect(test.steps.map((step) => step.uses && actionName(step.uses)).filter(Boolean)).toEqual(["actions/checkout", "actions/setup-node"]);
    const builds = jobs[1]!.steps.filter((step) => step.run?.startsWith("docker buildx build")).map((step) => step.run);
    expect(builds).toEqual([expect.stringContaining("containers/lite/Dockerfile"), expect.stringContaining("containers/standard/Dockerfile")]);
  });

  it("reads deploy.yml: both jobs deploy the tested commit with the environment's secrets, production only from its tag", () => {
    const [staging, production] = workflowJobs(workflow("deploy.yml"), context);
    expect(staging?.condition).toContain("head_branch == 'main'");
    expect(staging?.steps[0]).toMatchObject({ uses: expect.stringMatching(/^actions\/checkout@[0-9a-f]{40}$/), with: { ref: "abc123" } });
    expect(staging?.steps.at(-1)).toMatchObject({
      run: expect.stringContaining("npm run deploy -- --env staging --only rollout"),
      env: { CLOUDFLARE_API_TOKEN: "t", DATABASE_URL: "postgres://db", SMOKE_TOKEN: "s", TESTED_SHA: "abc123" },
    });
    expect(production?.steps.find((step) => step.name.startsWith("Check the tag"))?.env).toMatchObject({ TAG: "v1.2.3", TESTED_SHA: "abc123" });
    expect(production?.steps.at(-1)?.run).toContain("npm run deploy -- --env production --only rollout");
  });

  it("reads deploy.yml: the install and the build see no secret, the migration only DATABASE_URL", () => {
    const secrets = new Set(Object.entries(context).flatMap(([path, value]) => (path.startsWith("secrets.") ? [value] : [])));
    for (const job of workflowJobs(workflow("deploy.yml"), context)) {
      const seen = (prefix: string) => {
        const step = job.steps.find((s) => s.run?.startsWith(prefix));
        expect(step, `${job.id}: a step running ${prefix}`).toBeDefined();
        return Object.entries(step?.env ?? {})
          .filter(([, value]) => secrets.has(value))
          .map(([name]) => name);
      };
      expect(seen("npm ci --ignore-scripts")).toEqual([]);
      expect(seen("npm rebuild node")).toEqual([]);
      expect(seen("npm run --silent build")).toEqual([]);
      expect(seen(`npm run deploy -- --env ${job.id} --only migrate`)).toEqual(["DATABASE_URL"]);
      expect(job.steps.filter((step) => step.run?.includes("npm ci")).map((step) => step.run)).toEqual(["npm ci --ignore-scripts"]);
    }
  });
});
