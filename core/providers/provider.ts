/**
 * Which provider a generation calls, with which key, and how its replies are priced.
 *
 * The platform's key (MODEL_API_KEY) goes only to the platform's own provider
 * (MODEL_BASE_URL). An agent whose model_base_url is anything else talks to a server the
 * tenant chose, possibly its own: it must bring its own key (model_api_key_secret), and
 * its URL must pass the egress check (./egress.ts) again here, in case the operator's
 * allowance changed since the agent was saved.
 */

import type { SecretValue } from "../output/redaction";
import { modelPriceFrom, type Pricing, priceFor, pricesFrom } from "../usage/pricing";
import type { FieldIssue } from "../validation/issues";
import { allowanceFrom, checkModelUrl } from "./egress";

/** The operator's settings this module reads (Worker variables and secrets). */
export interface ProviderEnv {
  MODEL_BASE_URL?: string;
  MODEL_API_KEY?: string;
  MODEL_PRICES?: string;
  DEFAULT_MODEL_PRICE?: string;
  ALLOW_PRIVATE_MODEL_URLS?: string;
}

/** The model settings of a run snapshot. */
export interface ModelSettings {
  model: string;
  base_url: string | null;
  api_key_secret: string | null;
}

export type GenerationProvider = { ok: true; provider: { baseURL: string; apiKey: string }; pricing: Pricing } | { ok: false; code: string; message: string };

/**
 * A base URL reduced to what decides where requests go: scheme, host, port (the default
 * one dropped) and path without trailing slashes, plus any query and credentials (so a
 * URL carrying credentials is never taken for the platform's). Null when unparsable.
 *
 * @example normaliseBaseUrl("HTTPS://API.example.com:443/v1/") // "https://api.example.com/v1"
 */
export function normaliseBaseUrl(raw: string): string | null {
  try {
    const url = new URL(raw.trim());
    const credentials = url.username || url.password ? `${url.username}:${url.password}@` : "";
    return `${url.protocol}//${credentials}${url.host}${url.pathname.replace(/\/+$/, "")}${url.search}`;
  } catch {
    return null;
  }
}

/**
 * Whether a base URL is the platform's own provider.
 *
 * @example isPlatformProvider("http://127.0.0.1:9/v1/", "http://127.0.0.1:9/v1") // true
 */
export function isPlatformProvider(baseUrl: string, platformBaseUrl: string | undefined): boolean {
  if (!platformBaseUrl) return false;
  const mine = normaliseBaseUrl(baseUrl);
  return mine !== null && mine === normaliseBaseUrl(platformBaseUrl);
}

/**
 * The 422 issue of an agent's model_base_url, or null when it may be saved: the
 * platform's own provider always may; any other must pass the egress check.
 *
 * @example modelBaseUrlIssue("http://10.0.0.5/v1", {}) // { field: "model_base_url", message: "points at a private address …" }
 */
export function modelBaseUrlIssue(baseUrl: string | null | undefined, env: ProviderEnv): FieldIssue | null {
  if (!baseUrl || isPlatformProvider(baseUrl, env.MODEL_BASE_URL)) return null;
  const verdict = checkModelUrl(baseUrl, allowanceFrom(env.ALLOW_PRIVATE_MODEL_URLS));
  return verdict.ok ? null : { field: "model_base_url", message: verdict.message };
}

/**
 * Decides a generation's provider before any model call (generation-start errors,
 * ERR-008), from the run snapshot's model settings, the operator's environment and the
 * secret values that reach the agent this generation (its own key is one of them).
 *
 * @example providerForGeneration({ model: "gpt-4.1", base_url: null, api_key_secret: null }, env)
 * // { ok: true, provider: { baseURL: env.MODEL_BASE_URL, apiKey: env.MODEL_API_KEY }, pricing: {…, platformKey: true} }
 */
export function providerForGeneration(settings: ModelSettings, env: ProviderEnv, secrets: readonly SecretValue[] = []): GenerationProvider {
  const baseURL = settings.base_url ?? env.MODEL_BASE_URL;
  if (!baseURL) {
    return { ok: false, code: "provider.unconfigured", message: "No model provider is configured (set MODEL_BASE_URL or the agent's model_base_url)" };
  }
  const platform = isPlatformProvider(baseURL, env.MODEL_BASE_URL);
  if (!platform) {
    const verdict = checkModelUrl(baseURL, allowanceFrom(env.ALLOW_PRIVATE_MODEL_URLS));
    if (!verdict.ok) {
      return { ok: false, code: "provider.url_refused", message: `The agent's model_base_url ${verdict.message}; no model call was made` };
    }
    if (!settings.api_key_secret) {
      return {
        ok: false,
        code: "provider.key_required",
        message:
          "The agent's model_base_url is not the platform's provider, and the platform's key is never sent elsewhere: name the agent's own key in model_api_key_secret",
      };
    }
  }
  if (settings.api_key_secret) {
    // The agent's own key: a secret of the organisation that reaches it (SEC-001), or a
    // generation-start error (SEC-004). Its spend is the tenant's, priced by the table only.
    const own = secrets.find((s) => s.name === settings.api_key_secret);
    if (!own) {
      return {
        ok: false,
        code: "secret.missing",
        message: `The agent's model key secret ${settings.api_key_secret} does not exist or is not granted to the agent; no model call was made`,
      };
    }
    return { ok: true, provider: { baseURL, apiKey: own.value }, pricing: { prices: pricesFrom(env.MODEL_PRICES), fallback: null, platformKey: false } };
  }
  const pricing: Pricing = { prices: pricesFrom(env.MODEL_PRICES), fallback: modelPriceFrom(env.DEFAULT_MODEL_PRICE), platformKey: true };
  if (!priceFor(settings.model, pricing.prices) && !pricing.fallback) {
    return {
      ok: false,
      code: "usage.unpriced_model",
      message: `The model ${settings.model} has no price on the platform's key and no DEFAULT_MODEL_PRICE is configured, so its spend could not be counted; no model call was made`,
    };
  }
  return { ok: true, provider: { baseURL, apiKey: env.MODEL_API_KEY ?? "" }, pricing };
}
