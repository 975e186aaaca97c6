import { tmpdir } from "node:os";
import { join } from "node:path";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { noteConsoleLine, PLATFORM_KEY_CANARY } from "./test/setup/canary.js";
import { TEST_SECRETS_KEK } from "./test/setup/secret-canary.js";
import { BoxFilesAlongside } from "./test/setup/sequencer.js";

/**
 * Six projects:
 * - unit: pure modules and Node-side tools (mock model, planners, validation), in Node.
 * - workers: the Worker and the objects inside workerd, against a real Postgres that the
 *   project's global setup starts on free ports.
 * - workers-eviction: the workerd tests that evict an object, run alone after the others.
 * - e2e: black-box HTTP tests against the whole local stack (`wrangler dev`).
 * - images: the sandbox images built and run with Docker (skipped when no engine answers).
 * - browser: the operator console in headless Chromium (Debian's /usr/bin/chromium,
 *   driven by playwright-core) against its own local stack.
 */
/**
 * A project of tests inside workerd, against a Postgres and mock model its global setup starts.
 * `isolate: false` keeps each vitest worker's workerd and module cache from file to file
 * instead of starting both anew per file (decision 0028): every test makes its own
 * organisation, agents and objects, so a file finds nothing of another's.
 */
function workerd(name: string, include: string[], exclude: string[], groupOrder: number, options: { maxWorkers?: number; isolate: boolean }) {
  return {
    plugins: [
      cloudflareTest(({ inject }) => ({
        main: "./workers/index.ts",
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings: {
            DATABASE_URL: inject("databaseUrl"),
            NEON_WS_PROXY: inject("neonWsProxy"),
            MODEL_BASE_URL: `${inject("mockModelUrl")}/v1`,
            DEFAULT_MODEL: "mock-model",
            // A provider key, so tests can check it never reaches a log, an error or a row
            // (checked for the whole run by the global setup's teardown, test/setup/canary.ts).
            MODEL_API_KEY: PLATFORM_KEY_CANARY,
            // Seals the secrets tests store (one of them the canary value, test/setup/secret-canary.ts).
            SECRETS_KEK: TEST_SECRETS_KEK,
            // Agents may point at the mock model's other paths (127.0.0.1), as on the local stack.
            ALLOW_PRIVATE_MODEL_URLS: "loopback",
            // The "local" preset on the local MCP server (test/setup/database.ts).
            MCP_PRESETS_URL_OVERRIDES: `local=${inject("mcpServerUrl")}/mcp`,
            // The group-history selector, served by the mock model under its own model name.
            TYPESAFE_API_KEY: "sk-test-selector-key-0123456789",
            GROUP_SELECTOR_MODEL: "selector-model",
            // The local forge as the platform's GitHub App (test/setup/database.ts).
            GITHUB_API_URL: inject("forgeApiUrl"),
            GITHUB_GIT_URL: inject("forgeGitUrl"),
            GITHUB_APP_ID: inject("githubAppId"),
            GITHUB_APP_PRIVATE_KEY: inject("githubAppPrivateKey"),
            GITHUB_WEB_URL: inject("forgeWebUrl"),
            GITHUB_APP_SLUG: inject("githubAppSlug"),
            GITHUB_APP_CLIENT_ID: inject("githubAppClientId"),
            GITHUB_APP_CLIENT_SECRET: inject("githubAppClientSecret"),
            GITHUB_WEBHOOK_SECRET: inject("githubWebhookSecret"),
          },
          // A tiny budget the rate-limit tests swap in for API_RATE_LIMIT (which stays high).
          ratelimits: { TEST_LOW_RATE_LIMIT: { namespace_id: "9001", simple: { limit: 5, period: 60 } } },
        },
      })),
    ],
    test: {
      name,
      include,
      exclude: ["**/node_modules/**", ...exclude],
      globalSetup: ["./test/setup/database.ts"],
      setupFiles: ["./test/workerd/warm.ts"],
      sequence: { groupOrder },
      isolate: options.isolate,
      ...(options.maxWorkers ? { maxWorkers: options.maxWorkers } : {}),
      testTimeout: 20_000,
      // Files run side by side: a seed or a workerd start shares the cores with them.
      hookTimeout: 60_000,
      // cron-parser is CommonJS requiring luxon; pre-bundled, it resolves inside workerd as
      // it does in wrangler's deploy bundle.
      deps: { optimizer: { ssr: { enabled: true, include: ["cron-parser"] } } },
    },
  };
}

/** Held by the box file that runs now (test/setup/box-turn.ts); one per run. */
const BOX_TURN = join(tmpdir(), `guilds-box-turn-${process.pid}-${Date.now()}`);

export default defineConfig({
  test: {
    // Files run side by side whatever the machine's core count (vitest's default, one less
    // than the cores, is a single file at a time on 2 cores): much of the e2e and browser
    // time is waiting on a stack, Postgres or containers, which other files' work fills. The
    // files that run boxes or a stack of their own run one at a time beside the rest, the next
    // one waiting for its turn in a worker of its own: three files at work, a fourth waiting
    // (test/setup/box-files.ts; docs/decisions/0028-suite-wall-time.md).
    maxWorkers: 4,
    sequence: { sequencer: BoxFilesAlongside },
    // Console lines of the Worker and objects under test, checked for the platform key;
    // lines outside any test (an object logging after its test ended) count too.
    onConsoleLog(log, _type, entity) {
      if (!entity) noteConsoleLine(log, "no test");
      else if (entity.project.name.startsWith("workers")) noteConsoleLine(log, "module" in entity ? entity.module.moduleId : entity.moduleId);
    },
    projects: [
      {
        test: {
          name: "unit",
          environment: "node",
          sequence: { groupOrder: 0 },
          // Files run side by side: a bundle, a guest or a git server shares the cores with them.
          testTimeout: 20_000,
          hookTimeout: 60_000,
          // The API's schemas are pure zod: their tests run here, beside the schemas in workers/.
          include: [
            "core/**/*.test.ts",
            "containers/**/*.test.ts",
            "scripts/**/*.test.ts",
            "test/unit/**/*.test.ts",
            "web/**/*.test.ts",
            "workers/**/*.schema.test.ts",
          ],
          exclude: ["**/node_modules/**", "web/dist/**"],
        },
      },
      workerd("workers", ["workers/**/*.test.ts", "durable-objects/**/*.test.ts"], ["**/*.eviction.test.ts", "workers/**/*.schema.test.ts"], 0, {
        isolate: false,
      }),
      // Evicting an object resets the isolate the tests share with it: these files run
      // alone, after the others, one at a time, each in a workerd of its own.
      workerd("workers-eviction", ["**/*.eviction.test.ts"], [], 1, { maxWorkers: 1, isolate: true }),
      {
        test: {
          name: "e2e",
          environment: "node",
          sequence: { groupOrder: 0 },
          include: ["test/e2e/**/*.test.ts"],
          globalSetup: ["./test/setup/stack.ts"],
          setupFiles: ["./test/setup/box-turn.ts"],
          provide: { boxTurn: BOX_TURN },
          testTimeout: 30_000,
          hookTimeout: 120_000,
        },
      },
      {
        // The sandbox images built and run with Docker (skipped when no engine answers).
        test: {
          name: "images",
          environment: "node",
          sequence: { groupOrder: 0 },
          include: ["test/images/**/*.test.ts"],
          globalSetup: ["./test/setup/container-engine.ts"],
          testTimeout: 60_000,
          hookTimeout: 900_000,
        },
      },
      {
        test: {
          name: "browser",
          environment: "node",
          sequence: { groupOrder: 0 },
          include: ["test/browser/**/*.test.ts"],
          globalSetup: ["./test/setup/stack.ts"],
          setupFiles: ["./test/setup/box-turn.ts"],
          provide: { boxTurn: BOX_TURN },
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
