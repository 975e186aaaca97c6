import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

/**
 * Three projects:
 * - unit: pure modules and Node-side tools (mock model, planners, validation), in Node.
 * - workers: the Worker and the agent object inside workerd, against a real Postgres
 *   that the project's global setup starts on free ports.
 * - e2e: black-box HTTP tests against the whole local stack (`wrangler dev`).
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          environment: "node",
          include: ["core/**/*.test.ts", "scripts/**/*.test.ts", "test/unit/**/*.test.ts"],
        },
      },
      {
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
              },
            },
          })),
        ],
        test: {
          name: "workers",
          include: ["workers/**/*.test.ts", "durable-objects/**/*.test.ts"],
          globalSetup: ["./test/setup/database.ts"],
        },
      },
      {
        test: {
          name: "e2e",
          environment: "node",
          include: ["test/e2e/**/*.test.ts"],
          globalSetup: ["./test/setup/stack.ts"],
          testTimeout: 30_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
