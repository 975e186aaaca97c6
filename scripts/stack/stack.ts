import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { migrateDatabase } from "../db/migrate";
import { startMockModel, type MockModel } from "../mock-model/server";
import { ensureConsoleBuilt } from "./console";
import { ensureOperatorToken } from "./operator";
import { freePort } from "./ports";
import { redactUrl, startDatabase } from "./postgres";
import { startWranglerDev } from "./wrangler";
import { startWsProxy } from "./ws-proxy";

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
  /** Progress lines of the stack itself. */
  log?: (line: string) => void;
  /** Output of wrangler dev and Postgres. */
  output?: (line: string) => void;
  /** max_connections of the embedded Postgres (benchmarks with many agents raise it). */
  maxConnections?: number;
  /** Record the Worker's Postgres round trips (benchmarks). */
  countRoundTrips?: boolean;
  /** More Worker variables, e.g. a benchmark's MAX_RUN_SUBSCRIBERS. */
  vars?: Record<string, string>;
}

export interface Stack {
  apiUrl: string;
  token: string;
  mockModelUrl: string | null;
  databaseUrl: string;
  /** The proxy's record of round trips, when countRoundTrips was set. */
  roundTrips: number[];
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
    const db = await startDatabase({ databaseUrl: options.databaseUrl, dataDir: join(options.stateDir, "postgres"), maxConnections: options.maxConnections, log: output });
    stops.push(db.stop);
    log(`Postgres ${db.embedded ? "(embedded) " : ""}${redactUrl(db.url)}`);
    await migrateDatabase(db.url);
    log("migrations applied");
    const proxy = await startWsProxy({ allow: [`${db.host}:${db.port}`], countRoundTrips: options.countRoundTrips });
    stops.push(proxy.close);
    let mock: MockModel | null = null;
    if (!options.modelBaseUrl) {
      mock = await startMockModel();
      stops.push(mock.close);
      log(`mock model ${mock.url}`);
    }
    const { token, created } = await ensureOperatorToken(db.url, join(options.stateDir, "operator-token"));
    if (created) log("created the local organisation and its operator token");
    const vars: Record<string, string> = {
      DATABASE_URL: db.url,
      NEON_WS_PROXY: proxy.address,
      MODEL_BASE_URL: options.modelBaseUrl ?? `${mock!.url}/v1`,
      DEFAULT_MODEL: options.defaultModel ?? (mock ? "mock-model" : "gpt-4.1-mini"),
    };
    if (options.modelApiKey) vars.MODEL_API_KEY = options.modelApiKey;
    Object.assign(vars, options.vars);
    const port = options.port ?? 8787;
    await ensureConsoleBuilt(log);
    const wrangler = await startWranglerDev({
      port,
      inspectorPort: await freePort(),
      vars,
      envFile: join(options.stateDir, "worker.env"),
      persistTo: join(options.stateDir, "wrangler"),
      onOutput: output,
    });
    stops.push(wrangler.stop);
    const stack: Stack = { apiUrl: wrangler.url, token, mockModelUrl: mock?.url ?? null, databaseUrl: db.url, roundTrips: proxy.clientMessages, stop };
    writeFileSync(
      join(options.stateDir, "stack.json"),
      JSON.stringify({ api_url: stack.apiUrl, token, mock_model_url: stack.mockModelUrl, database_url: db.url, pid: process.pid }, null, 2) + "\n",
      { mode: 0o600 },
    );
    return stack;
  } catch (error) {
    await stop();
    throw error;
  }
}
