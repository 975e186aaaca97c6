import { env } from "cloudflare:workers";
import type { Env } from "../../bindings/env";
import { SECRET_VALUE_CANARY } from "../setup/secret-canary";

/**
 * The platform key may reach the platform's provider and nothing else: every response
 * and SSE frame the test helpers read passes this check (the global teardown checks rows,
 * requests and log lines, test/setup/canary.ts).
 *
 * @example refusePlatformKey(await response.text(), "GET /api/runs/…")
 */
export function refusePlatformKey(text: string, where: string): void {
  const key = (env as unknown as Env).MODEL_API_KEY;
  if (key && text.includes(key)) throw new Error(`The platform key (MODEL_API_KEY) appeared in ${where}`);
  if (text.includes(SECRET_VALUE_CANARY)) throw new Error(`The canary secret value appeared in ${where}`);
}
