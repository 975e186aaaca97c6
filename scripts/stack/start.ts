/**
 * `npm start`: the whole platform locally, in one command. Honours PORT (API port,
 * default 8787), DATABASE_URL (use that Postgres instead of the embedded one) and
 * MODEL_BASE_URL / MODEL_API_KEY / DEFAULT_MODEL (a real provider instead of the mock),
 * MODEL_PRICES / DEFAULT_MODEL_PRICE and ALLOW_PRIVATE_MODEL_URLS (default loopback), and
 * GITHUB_API_URL / GITHUB_GIT_URL / GITHUB_WEB_URL / GITHUB_APP_ID / GITHUB_APP_PRIVATE_KEY /
 * GITHUB_APP_SLUG / GITHUB_APP_CLIENT_ID / GITHUB_APP_CLIENT_SECRET (a real GitHub App instead
 * of the local forge), TAVILY_API_KEY / TAVILY_API_URL (real web search instead of the local
 * stand-in; TAVILY_API_KEY=off: no web search), SANDBOX_WARM_LITE / SANDBOX_WARM_STANDARD (boxes
 * each image's warm pool keeps started, default 1 here; 0 turns the pool off).
 * Ctrl-C or SIGTERM stops every child.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { firstStarts, localImageTag } from "../containers/first-start";
import { declaredImages } from "../containers/wrangler-images";
import { clearLeftovers, StackAlreadyRunning } from "./leftovers";
import { stateDir as localStateDir } from "./local";
import { portInUse } from "./ports";
import { startStack } from "./stack";
import { ROOT } from "./wrangler";

const stateDir = localStateDir();
const port = Number(process.env.PORT || 8787);
const verbose = process.env.STACK_VERBOSE === "1";
// wrangler dev looks up Cloudflare's request metadata online; offline that is harmless.
const OFFLINE_NOISE = /Request\.cf|workers\.cloudflare\.com/;

// A stack of this folder killed without stopping (kill -9, a closed terminal) may still hold
// the port; one that still runs is not ours to stop.
await clearLeftovers(stateDir, (line) => console.log(`[stack] ${line}`)).catch((error: unknown) => {
  if (!(error instanceof StackAlreadyRunning)) throw error;
  console.error(`[stack] ${error.message}`);
  process.exit(1);
});
if (await portInUse(port)) {
  console.error(`Port ${port} is in use. Stop what listens there or start with PORT=<another port> npm start.`);
  process.exit(1);
}

const stack = await startStack({
  port,
  stateDir,
  databaseUrl: process.env.DATABASE_URL || undefined,
  modelBaseUrl: process.env.MODEL_BASE_URL || undefined,
  modelApiKey: process.env.MODEL_API_KEY || undefined,
  defaultModel: process.env.DEFAULT_MODEL || undefined,
  modelPrices: process.env.MODEL_PRICES || undefined,
  defaultModelPrice: process.env.DEFAULT_MODEL_PRICE || undefined,
  allowPrivateModelUrls: process.env.ALLOW_PRIVATE_MODEL_URLS || undefined,
  github: realGitHub(),
  search: searchSetting(),
  vars: { SANDBOX_WARM_LITE: process.env.SANDBOX_WARM_LITE || "1", SANDBOX_WARM_STANDARD: process.env.SANDBOX_WARM_STANDARD || "1" },
  log: (line) => console.log(`[stack] ${line}`),
  output: (line) => {
    if (verbose || (/error|exception|\[wrangler:(warn|error)\]/i.test(line) && !OFFLINE_NOISE.test(line))) {
      console.log(`[worker] ${line}`);
    }
  },
}).catch((error: unknown) => {
  console.error(`[stack] failed to start: ${describeFailure(error)}`);
  process.exit(1);
});

let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`[stack] ${signal}: stopping`);
  await stack.stop();
  rmSync(join(stateDir, "stack.json"), { force: true });
  process.exit(0);
};
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));

// Ready means a first Browser or CLI tab does not wait: each sandbox image has started once.
if (stack.containers.enabled) {
  const images = declaredImages(join(ROOT, "wrangler.toml")).map((image) => localImageTag(image.className));
  console.log(`[stack] starting each sandbox image once (${images.join(", ")})`);
  await firstStarts(images).then(
    (starts) =>
      console.log(
        `[stack] sandbox images ready: ${starts.map((s) => `${s.image.replace(/^guilds-local\/(.*):latest$/, "$1")} ${s.seconds.toFixed(1)} s`).join(", ")}`,
      ),
    (error: unknown) => console.log(`[stack] a sandbox image did not start (its first box will try again): ${describeFailure(error)}`),
  );
}

console.log(`API ${stack.apiUrl}`);
console.log(`Console ${stack.apiUrl}/`);
console.log(`Operator token ${stack.token}`);
console.log(stack.containers.enabled ? "Sandboxes in real containers (Docker)" : `Sandboxes unavailable: ${stack.containers.reason}`);
if (stack.mockModelUrl) console.log(`Mock model ${stack.mockModelUrl} (script it with POST /__script)`);
console.log(`Local MCP server ${stack.mcpServerUrl}/mcp (old SSE transport at /sse, bearer at /bearer/mcp; state at /admin/state)`);
if (stack.forge) console.log(`Local forge ${stack.forge.adminUrl} (git ${stack.forge.gitUrl}; stands in for GitHub)`);
console.log("Ready. Ctrl-C stops everything.");

/**
 * A real GitHub App when GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY are set (the URLs default to
 * github.com's); claiming installations also needs its slug and OAuth client.
 */
function realGitHub() {
  const {
    GITHUB_API_URL: apiUrl = "https://api.github.com",
    GITHUB_GIT_URL: gitUrl = "https://github.com",
    GITHUB_WEB_URL: webUrl,
    GITHUB_APP_ID: appId,
    GITHUB_APP_PRIVATE_KEY: privateKeyPem,
    GITHUB_APP_SLUG: slug,
    GITHUB_APP_CLIENT_ID: clientId,
    GITHUB_APP_CLIENT_SECRET: clientSecret,
  } = process.env;
  return appId && privateKeyPem ? { apiUrl, gitUrl, webUrl, appId, privateKeyPem, slug, clientId, clientSecret } : undefined;
}

/** The cause of a failed start in words, whatever was thrown (never a bare "undefined"). */
function describeFailure(error: unknown): string {
  if (error instanceof Error) return error.message || error.stack || error.name;
  if (error === undefined || error === null) return "an unknown error (nothing was thrown with it); run with STACK_VERBOSE=1 for every log line";
  return typeof error === "string" ? error : JSON.stringify(error);
}

/** Real Tavily when a key is given, none with `off`, else the loopback stand-in (EXACT-015). */
function searchSetting() {
  const apiKey = process.env.TAVILY_API_KEY;
  if (!apiKey) return "stand-in" as const;
  if (apiKey === "off") return "off" as const;
  return { apiKey, ...(process.env.TAVILY_API_URL ? { apiUrl: process.env.TAVILY_API_URL } : {}) };
}
