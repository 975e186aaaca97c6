import { describe, expect, it } from "vitest";
import { parseDeployArgs, parseRollbackArgs } from "./options";

const ENVS = ["staging", "production"];

describe("ENVIRONMENTS: npm run deploy arguments", () => {
  it("ENVIRONMENTS: --env names an environment of wrangler.toml and runs every step", () => {
    expect(parseDeployArgs(["--env", "production"], ENVS)).toEqual({ ok: true, options: { env: "production", step: "all" } });
    expect(parseDeployArgs(["-e", "staging"], ENVS)).toEqual({ ok: true, options: { env: "staging", step: "all" } });
  });

  it("ENVIRONMENTS: refuses a missing or unknown environment, listing the known ones", () => {
    const missing = parseDeployArgs([], ENVS);
    expect(missing).toEqual({ ok: false, message: expect.stringMatching(/--env is required.*staging, production/) });
    const unknown = parseDeployArgs(["--env", "prod"], ENVS);
    expect(unknown).toEqual({ ok: false, message: expect.stringMatching(/--env prod is not an environment.*staging, production/) });
  });

  it("ENVIRONMENTS: --only runs one step, and nothing but migrate, rollout or check", () => {
    expect(parseDeployArgs(["--env", "production", "--only", "migrate"], ENVS)).toMatchObject({ ok: true, options: { step: "migrate" } });
    expect(parseDeployArgs(["--env", "production", "--only", "check"], ENVS)).toMatchObject({ ok: true, options: { step: "check" } });
    expect(parseDeployArgs(["--env", "production", "--only", "rollout"], ENVS)).toMatchObject({ ok: true, options: { step: "rollout" } });
    expect(parseDeployArgs(["--env", "production", "--only", "deploy"], ENVS)).toEqual({
      ok: false,
      message: expect.stringContaining("--only must be migrate, rollout or check"),
    });
  });

  it("ENVIRONMENTS: --url keeps the origin of a URL, or of a host as wrangler prints it, and refuses anything else", () => {
    expect(parseDeployArgs(["--env", "staging", "--url", "https://g-staging.acme.workers.dev/api/"], ENVS)).toEqual({
      ok: true,
      options: { env: "staging", step: "all", url: "https://g-staging.acme.workers.dev" },
    });
    expect(parseDeployArgs(["--env", "production", "--url", "agents.example.com (custom domain)"], ENVS)).toMatchObject({
      ok: true,
      options: { url: "https://agents.example.com" },
    });
    for (const bad of ["ftp://example.com", "*.example.com/*", ""]) {
      expect(parseDeployArgs(["--env", "staging", "--url", bad], ENVS)).toMatchObject({ ok: false, message: expect.stringContaining("--url must be") });
    }
  });

  it("ENVIRONMENTS: an unknown flag or a stray argument is refused", () => {
    expect(parseDeployArgs(["--env", "production", "--force"], ENVS)).toMatchObject({ ok: false, message: expect.stringContaining("--force") });
    expect(parseDeployArgs(["production"], ENVS)).toMatchObject({ ok: false });
  });

  it("--steps, --soak and --message shape the rollout", () => {
    expect(parseDeployArgs(["--env", "production", "--steps", "5,25,100", "--soak", "0", "--message", "v1.2.0"], ENVS)).toEqual({
      ok: true,
      options: { env: "production", step: "all", steps: [5, 25, 100], soakS: 0, message: "v1.2.0" },
    });
    expect(parseDeployArgs(["--env", "production", "--steps", "10,50"], ENVS)).toMatchObject({ ok: false, message: expect.stringContaining("end at 100") });
    expect(parseDeployArgs(["--env", "production", "--soak", "-1"], ENVS)).toMatchObject({ ok: false });
  });
});

describe("npm run rollback arguments", () => {
  it("takes --env, an optional --version and --dry-run", () => {
    expect(parseRollbackArgs(["--env", "production"], ENVS)).toEqual({ ok: true, options: { env: "production", dryRun: false } });
    expect(parseRollbackArgs(["--env", "staging", "--version", "0f1e2d3c-aaaa-bbbb-cccc-000000000000", "--dry-run"], ENVS)).toEqual({
      ok: true,
      options: { env: "staging", version: "0f1e2d3c-aaaa-bbbb-cccc-000000000000", dryRun: true },
    });
    expect(parseRollbackArgs([], ENVS)).toMatchObject({ ok: false, message: expect.stringContaining("--env is required") });
    expect(parseRollbackArgs(["--env", "production", "--version", "x; rm"], ENVS)).toMatchObject({ ok: false });
  });
});
