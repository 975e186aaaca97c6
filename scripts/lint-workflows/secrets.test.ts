import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../stack/wrangler";
import { misplacedSecrets } from "./secrets";

// Written as GitHub writes them: `${{ … }}` is the workflow's syntax, not a template.
const open = "${{";

describe("misplacedSecrets", () => {
  it("refuses a secret in a job's env:, naming the job, the variable and its line", () => {
    const workflow = [
      "jobs:",
      "  staging:",
      "    env:",
      '      WRANGLER_SEND_METRICS: "false"',
      `      CLOUDFLARE_API_TOKEN: ${open} secrets.CLOUDFLARE_API_TOKEN }}`,
      `      DATABASE_URL: ${open}secrets['DATABASE_URL']}}`,
      "    steps:",
      "      - run: npm ci",
    ].join("\n");
    expect(misplacedSecrets(workflow)).toEqual([
      { line: 5, job: "staging", variable: "CLOUDFLARE_API_TOKEN", message: expect.stringContaining("job staging sets CLOUDFLARE_API_TOKEN from a secret") },
      { line: 6, job: "staging", variable: "DATABASE_URL", message: expect.stringContaining("job staging sets DATABASE_URL from a secret") },
    ]);
  });

  it("refuses a secret in the workflow's env: and in a job container's env:, which every step also reads", () => {
    const workflow = [
      "env:",
      `  TOKEN: ${open} secrets.TOKEN }}`,
      "jobs:",
      "  build:",
      "    container:",
      "      image: node:24",
      "      env:",
      `        ALL: ${open} toJSON(secrets) }}`,
      "    steps: []",
    ].join("\n");
    expect(misplacedSecrets(workflow)).toEqual([
      { line: 2, variable: "TOKEN", message: expect.stringContaining("the workflow sets TOKEN") },
      { line: 8, job: "build", variable: "ALL", message: expect.stringContaining("the container of job build sets ALL") },
    ]);
  });

  it("refuses a secret pasted into a run: script, at its own line of the block", () => {
    const workflow = [
      "jobs:",
      "  deploy:",
      "    steps:",
      "      - name: Call the API",
      "        run: |",
      "          echo calling",
      `          curl -H "Authorization: Bearer ${open} secrets.API_TOKEN }}" https://example.com`,
    ].join("\n");
    expect(misplacedSecrets(workflow)).toEqual([
      {
        line: 7,
        job: "deploy",
        message: `step "Call the API" of job deploy writes ${open} secrets.API_TOKEN }} into its script; pass it through the step's env: and read "$NAME"`,
      },
    ]);
  });

  it("accepts secrets in a step's env: and with:, and other expressions in job env: and scripts", () => {
    const workflow = [
      "env:",
      `  SHA: ${open} github.sha }}`,
      "jobs:",
      "  deploy:",
      "    env:",
      `      DEPLOY_URL: ${open} vars.DEPLOY_URL }}`,
      "      NOTE: the secrets stay on the steps",
      "    services:",
      "      postgres:",
      "        image: postgres:18",
      "        env:",
      `          POSTGRES_PASSWORD: ${open} secrets.PG_PASSWORD }}`,
      "    steps:",
      "      - uses: some/action@3d3c42e5aac5ba805825da76410c181273ba90b1",
      "        with:",
      `          token: ${open} secrets.TOKEN }}`,
      '      - run: npm run deploy -- --message "$SHA"',
      "        env:",
      `          CLOUDFLARE_API_TOKEN: ${open} secrets.CLOUDFLARE_API_TOKEN }}`,
      `      - run: echo ${open} github.sha }} secrets`,
    ].join("\n");
    expect(misplacedSecrets(workflow)).toEqual([]);
  });

  it("finds nothing in the repository's workflows, deploy.yml's deploy secrets included", () => {
    const dir = join(ROOT, ".github/workflows");
    const files = readdirSync(dir).filter((name) => /\.ya?ml$/.test(name));
    expect(files).toContain("deploy.yml");
    for (const name of files) expect({ name, problems: misplacedSecrets(readFileSync(join(dir, name), "utf8")) }).toEqual({ name, problems: [] });
  });
});
