import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { freePort } from "../../scripts/stack/ports";
import { removeStateDir } from "../../scripts/stack/postgres-home";
import { startStack } from "../../scripts/stack/stack";
import { ROOT } from "../../scripts/stack/wrangler";

/** Where a test run leaves what is worth reading after it (screenshots, the stacks' logs). */
const ARTIFACTS = join(ROOT, "test-artifacts");

declare module "vitest" {
  export interface ProvidedContext {
    apiUrl: string;
    token: string;
    mockModelUrl: string;
    /** The stack's local MCP server (scripts/mcp-server): base URL, Streamable HTTP at `/mcp`. */
    mcpServerUrl: string;
    stackDatabaseUrl: string;
    stackStateDir: string;
    /** The local forge standing in for GitHub (scripts/forge): the Worker's GITHUB_API_URL, GITHUB_GIT_URL, and the tests' admin API. */
    forgeApiUrl: string;
    forgeGitUrl: string;
    forgeAdminUrl: string;
  }
}

/**
 * Global setup of the end-to-end tests: the whole local stack, exactly as
 * `npm start` runs it, on free ports with its state in a temporary folder.
 * TEST_DATABASE_URL points it at an existing Postgres instead of an embedded one.
 */
export default async function setup(project: TestProject) {
  const stateDir = mkdtempSync(join(tmpdir(), "guilds-e2e-"));
  // The stack's own lines (wrangler dev, the objects' logs), kept for the run's artifacts.
  const output: string[] = [];
  const keep = (line: string) => {
    output.push(line);
    if (output.length > 40_000) output.splice(0, 10_000);
  };
  const stack = await startStack({
    port: await freePort(),
    stateDir,
    databaseUrl: process.env.TEST_DATABASE_URL,
    // GUILDS_SEARCH=off: a stack without TAVILY_API_KEY, whose runs are offered no web search.
    search: process.env.GUILDS_SEARCH === "off" ? "off" : "stand-in",
    output: keep,
  }).catch((error: unknown) => {
    console.error(output.slice(-40).join("\n"));
    throw error;
  });
  project.provide("apiUrl", stack.apiUrl);
  project.provide("token", stack.token);
  project.provide("mockModelUrl", stack.mockModelUrl ?? "");
  project.provide("mcpServerUrl", stack.mcpServerUrl);
  project.provide("stackDatabaseUrl", stack.databaseUrl);
  project.provide("stackStateDir", stateDir);
  project.provide("forgeApiUrl", stack.forge?.apiUrl ?? "");
  project.provide("forgeGitUrl", stack.forge?.gitUrl ?? "");
  project.provide("forgeAdminUrl", stack.forge?.adminUrl ?? "");
  return async () => {
    await stack.stop();
    removeStateDir(stateDir);
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(join(ARTIFACTS, `stack-${project.name}.log`), `${output.join("\n")}\n`);
  };
}
