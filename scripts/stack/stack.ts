import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { DEFAULT_PRICES } from "../../core/usage/pricing";
import { bridgeGateway, removeOrphanSidecars, removeStackContainers } from "../containers/docker";
import { prepareContainerEngine } from "../containers/engine";
import { migrateDatabase } from "../db/migrate";
import { startLocalGitHub } from "../forge/local-app";
import { type LocalMcpServer, startMcpServer } from "../mcp-server/server";
import { type MockModel, startMockModel } from "../mock-model/server";
import { startSearchStandIn } from "../search-stand-in/server";
import { ensureConsoleBuilt } from "./console";
import { forwardGitGateway } from "./gateway-forward";
import { clearLeftovers, ProcessRecord } from "./leftovers";
import { ensureOperatorToken } from "./operator";
import { freePort } from "./ports";
import { redactUrl, startDatabase } from "./postgres";
import { ensureSecretsKek } from "./secrets-kek";
import { startWranglerDev } from "./wrangler";
import { startWsProxy } from "./ws-proxy";

/** The Worker's name in wrangler.toml: workerd names its containers after it. */
const WORKER_NAME = "guilds-platform";

export interface StackOptions {
  /** API port (default 8787). */
  port?: number;
  /** Use this Postgres instead of the embedded one. */
  databaseUrl?: string;
  /** Local state: embedded Postgres data, the object storage of wrangler dev, the token. */
  stateDir: string;
  /** A real OpenAI-compatible provider; without one the scripted mock model serves. */
  modelBaseUrl?: string;
  modelApiKey?: string;
  defaultModel?: string;
  /** MODEL_PRICES and DEFAULT_MODEL_PRICE of the Worker (JSON, USD per million tokens); with the mock the default price is mock-model's. */
  modelPrices?: string;
  defaultModelPrice?: string;
  /** ALLOW_PRIVATE_MODEL_URLS of the Worker; default `loopback`, so agents may use a model served on this machine. */
  allowPrivateModelUrls?: string;
  /**
   * Web search (EXACT-015): a real Tavily key (and optionally its URL), or by default the
   * loopback stand-in with a dummy key; `off` leaves TAVILY_API_KEY unset, so runs are not
   * offered tavily_search.
   */
  search?: { apiKey: string; apiUrl?: string } | "stand-in" | "off";
  /** Progress lines of the stack itself. */
  log?: (line: string) => void;
  /** Output of wrangler dev and Postgres. */
  output?: (line: string) => void;
  /** max_connections of the embedded Postgres (benchmarks with many agents raise it). */
  maxConnections?: number;
  /** Record the Worker's Postgres round trips (benchmarks). */
  countRoundTrips?: boolean;
  /** A simulated distance to the database, one way, in ms (see WsProxyOptions.delayMs; benchmarks). */
  databaseDelayMs?: number;
  /** More Worker variables, e.g. a benchmark's MAX_RUN_SUBSCRIBERS. */
  vars?: Record<string, string>;
  /** Sandboxes in real containers: `auto` (default; GUILDS_CONTAINERS=off turns it off) sets up a Docker engine where it can. */
  containers?: "auto" | "off";
  /**
   * A real GitHub App; without one the local forge serves (scripts/forge) with an App of its
   * own, kept in `<stateDir>/forge`. Claiming installations needs its slug and OAuth client.
   */
  github?: {
    apiUrl: string;
    gitUrl: string;
    webUrl?: string;
    appId: string;
    privateKeyPem: string;
    slug?: string;
    clientId?: string;
    clientSecret?: string;
  };
}

export interface Stack {
  apiUrl: string;
  token: string;
  mockModelUrl: string | null;
  /** The local MCP server (scripts/mcp-server): base URL; its Streamable HTTP endpoint is `<url>/mcp`. */
  mcpServerUrl: string;
  databaseUrl: string;
  /** The proxy's record of round trips, when countRoundTrips was set. */
  roundTrips: number[];
  /** Of those, the messages that only open or close a connection (see WsProxy.connectionMessages). */
  connectionMessages: number[];
  /** Connections opened to the proxy (WebSocket or `/sql`), when countRoundTrips was set. */
  databaseConnections: number[];
  /** Whether sandboxes run (a Docker engine answered), and why not. */
  containers: { enabled: boolean; reason?: string };
  /** The local forge standing in for GitHub (null with a real App): its GitHub API, git base, web base (install page) and admin API. */
  forge: { apiUrl: string; gitUrl: string; webUrl: string; adminUrl: string } | null;
  /** The embedded Postgres alone, to stop and start again (outage tests); null for a server given by URL. */
  database: { stop(): Promise<void>; start(): Promise<void> } | null;
  stop(): Promise<void>;
}

/**
 * Brings the local platform up in order: Postgres, migrations, the WebSocket proxy,
 * the mock model (when no provider is configured), the operator token, the console's
 * static assets (built when missing or stale), wrangler dev.
 * `stop()` takes it down in reverse order.
 *
 * @example
 *   const stack = await startStack({ stateDir: ".local" });
 *   await fetch(`${stack.apiUrl}/api/health`);
 *   await stack.stop();
 */
export async function startStack(options: StackOptions): Promise<Stack> {
  const log = options.log ?? (() => {});
  const output = options.output ?? (() => {});
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const fn of stops.splice(0).reverse()) await fn().catch(() => {});
  };
  try {
    mkdirSync(options.stateDir, { recursive: true });
    await clearLeftovers(options.stateDir, log);
    const record = new ProcessRecord(options.stateDir);
    stops.push(async () => record.remove());
    const db = await startDatabase({ databaseUrl: options.databaseUrl, stateDir: options.stateDir, maxConnections: options.maxConnections, log: output });
    stops.push(db.stop);
    log(`Postgres ${db.embedded ? "(embedded) " : ""}${redactUrl(db.url)}`);
    await migrateDatabase(db.url);
    log("migrations applied");
    const proxy = await startWsProxy({ allow: [`${db.host}:${db.port}`], countRoundTrips: options.countRoundTrips, delayMs: options.databaseDelayMs });
    stops.push(proxy.close);
    let mock: MockModel | null = null;
    if (!options.modelBaseUrl) {
      mock = await startMockModel();
      stops.push(mock.close);
      log(`mock model ${mock.url}`);
    }
    const mcp: LocalMcpServer = await startMcpServer();
    stops.push(mcp.close);
    log(`local MCP server ${mcp.url}/mcp`);
    const { token, organisationId, created } = await ensureOperatorToken(db.url, join(options.stateDir, "operator-token"));
    if (created) log("created the local organisation and its operator token");
    const vars: Record<string, string> = {
      DATABASE_URL: db.url,
      NEON_WS_PROXY: proxy.address,
      MODEL_BASE_URL: options.modelBaseUrl ?? `${mock!.url}/v1`,
      DEFAULT_MODEL: options.defaultModel ?? (mock ? "mock-model" : "gpt-4.1-mini"),
      SECRETS_KEK: ensureSecretsKek(join(options.stateDir, "secrets-kek")),
      // The local operator runs the platform too: its organisation reads platform-wide figures (decision 0021).
      PLATFORM_OPERATOR_ORGANISATIONS: organisationId,
    };
    if (options.modelApiKey) vars.MODEL_API_KEY = options.modelApiKey;
    if (options.modelPrices) vars.MODEL_PRICES = options.modelPrices;
    // With the mock, every model name is the mock: any name an agent uses is priced as mock-model,
    // where a real provider's unknown models are refused until the operator sets a price.
    const defaultModelPrice = options.defaultModelPrice ?? (mock ? JSON.stringify(DEFAULT_PRICES["mock-model"]) : undefined);
    if (defaultModelPrice) vars.DEFAULT_MODEL_PRICE = defaultModelPrice;
    vars.ALLOW_PRIVATE_MODEL_URLS = options.allowPrivateModelUrls ?? "loopback";
    // The "local" preset reaches the local MCP server (presets are otherwise public servers).
    vars.MCP_PRESETS_URL_OVERRIDES = `local=${mcp.url}/mcp`;
    const search = options.search ?? "stand-in";
    if (search === "stand-in") {
      const standIn = await startSearchStandIn();
      stops.push(standIn.close);
      Object.assign(vars, { TAVILY_API_URL: standIn.url, TAVILY_API_KEY: standIn.key });
      log(`search stand-in ${standIn.url}`);
    } else if (search !== "off") {
      vars.TAVILY_API_KEY = search.apiKey;
      if (search.apiUrl) vars.TAVILY_API_URL = search.apiUrl;
    }
    Object.assign(vars, options.vars);
    const port = options.port ?? 8787;
    await ensureConsoleBuilt(log);
    const engine = await prepareContainerEngine({ mode: options.containers, log });
    // Without an engine the Worker still runs; its sandbox tools answer with this reason.
    if (!engine.enabled) vars.SANDBOX_UNAVAILABLE_REASON = engine.reason ?? "containers are off";
    // Its own image label per state folder: wrangler dev, stopping, removes the containers
    // of its images only, not those of another stack running beside it (the tests run three).
    const imageLabel = createHash("sha256").update(resolve(options.stateDir)).digest("hex").slice(0, 16);
    if (engine.enabled) {
      const left = await removeStackContainers(imageLabel);
      if (left) log(`removed ${left} sandbox container(s) a stopped stack of this folder left running`);
      await removeOrphanSidecars(WORKER_NAME);
      stops.push(async () => void (await removeOrphanSidecars(WORKER_NAME)));
    }
    let forge: Stack["forge"] = null;
    if (options.github) {
      const { apiUrl, gitUrl, webUrl, appId, privateKeyPem, slug, clientId, clientSecret } = options.github;
      Object.assign(vars, { GITHUB_API_URL: apiUrl, GITHUB_GIT_URL: gitUrl, GITHUB_APP_ID: appId, GITHUB_APP_PRIVATE_KEY: privateKeyPem });
      if (webUrl) vars.GITHUB_WEB_URL = webUrl;
      if (slug) vars.GITHUB_APP_SLUG = slug;
      if (clientId) vars.GITHUB_APP_CLIENT_ID = clientId;
      if (clientSecret) vars.GITHUB_APP_CLIENT_SECRET = clientSecret;
    } else {
      // Git runs in the boxes: they reach the forge on the bridge's gateway. Its App and state
      // stay in the state folder, as the database naming its installations does; after an
      // install it sends the user to the console's setup page, as GitHub does. Its webhooks go
      // to the Worker's port, known before wrangler listens on it.
      const local = await startLocalGitHub(engine.enabled ? ((await bridgeGateway()) ?? undefined) : undefined, log, {
        dir: join(options.stateDir, "forge"),
        setupUrl: `http://127.0.0.1:${port}/github/setup`,
        webhookUrl: `http://127.0.0.1:${port}/api/github/webhooks`,
        // CI runs pushed scripts in the lite image: only where the sandboxes' engine is on.
        ci: engine.enabled ? {} : { enabled: false, reason: `containers are off (${engine.reason ?? "no engine"})` },
      });
      stops.push(local.forge.close);
      Object.assign(vars, local.vars);
      forge = { apiUrl: local.forge.apiUrl, gitUrl: local.forge.gitUrl, webUrl: local.forge.webUrl, adminUrl: local.forge.adminUrl };
      log(`local forge ${local.forge.url} (git ${local.forge.gitUrl})`);
    }
    if (engine.enabled && !vars.GIT_GATEWAY_URL) {
      const bridge = await bridgeGateway();
      if (bridge) {
        const door = await forwardGitGateway(bridge, port);
        stops.push(door.close);
        vars.GIT_GATEWAY_URL = door.url;
        vars.MODEL_GATEWAY_URL = door.modelUrl;
        log(`git gateway for the boxes ${door.url}, model gateway ${door.modelUrl}`);
      }
    }
    const wrangler = await startWranglerDev({
      port,
      inspectorPort: await freePort(),
      vars,
      envFile: join(options.stateDir, "worker.env"),
      persistTo: join(options.stateDir, "wrangler"),
      onOutput: output,
      onSpawn: (pid) => record.add("wrangler dev", pid, { group: true }),
      containers: engine.enabled,
      env: { ...engine.env, GUILDS_IMAGE_LABEL: imageLabel },
    });
    // Now that it runs, its group also holds workerd.
    record.add("wrangler dev", wrangler.child.pid!, { group: true });
    stops.push(wrangler.stop);
    const stack: Stack = {
      apiUrl: wrangler.url,
      token,
      mockModelUrl: mock?.url ?? null,
      mcpServerUrl: mcp.url,
      databaseUrl: db.url,
      roundTrips: proxy.clientMessages,
      connectionMessages: proxy.connectionMessages,
      databaseConnections: proxy.connections,
      database: db.server ?? null,
      containers: { enabled: engine.enabled, reason: engine.reason },
      forge,
      stop,
    };
    writeFileSync(
      join(options.stateDir, "stack.json"),
      `${JSON.stringify({ api_url: stack.apiUrl, token, mock_model_url: stack.mockModelUrl, mcp_server_url: mcp.url, database_url: db.url, forge, pid: process.pid }, null, 2)}\n`,
      { mode: 0o600 },
    );
    return stack;
  } catch (error) {
    await stop();
    throw error;
  }
}
