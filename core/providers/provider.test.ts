import { describe, expect, it } from "vitest";
import { isPlatformProvider, modelBaseUrlIssue, normaliseBaseUrl, type ProviderEnv, providerForGeneration } from "./provider";

const KEY = "sk-platform-canary-0123456789";
const env: ProviderEnv = { MODEL_BASE_URL: "https://models.example.com/v1", MODEL_API_KEY: KEY };
const settings = (over: Partial<{ model: string; base_url: string | null; api_key_secret: string | null }> = {}) => ({
  model: "gpt-4.1-mini",
  base_url: null,
  api_key_secret: null,
  ...over,
});

describe("the provider of a generation", () => {
  it("HARDEN-4: normalises scheme, host, default port and trailing slashes; keeps path and query", () => {
    expect(normaliseBaseUrl("HTTPS://Models.Example.com:443/v1/")).toBe("https://models.example.com/v1");
    expect(normaliseBaseUrl("http://127.0.0.1:80/v1//")).toBe("http://127.0.0.1/v1");
    expect(normaliseBaseUrl("not a url")).toBeNull();
    expect(isPlatformProvider("https://models.example.com/v1/", env.MODEL_BASE_URL)).toBe(true);
    expect(isPlatformProvider("https://models.example.com:8443/v1", env.MODEL_BASE_URL)).toBe(false);
    expect(isPlatformProvider("http://models.example.com/v1", env.MODEL_BASE_URL)).toBe(false);
    expect(isPlatformProvider("https://models.example.com/v2", env.MODEL_BASE_URL)).toBe(false);
    expect(isPlatformProvider("https://models.example.com/v1?x=1", env.MODEL_BASE_URL)).toBe(false);
    expect(isPlatformProvider("https://models.example.com.evil.test/v1", env.MODEL_BASE_URL)).toBe(false);
    expect(isPlatformProvider("https://models.example.com/v1", undefined)).toBe(false);
    expect(isPlatformProvider("https://user:pw@models.example.com/v1", env.MODEL_BASE_URL)).toBe(false);
  });

  it("HARDEN-4: the platform's key goes to the platform's provider, however its URL is spelled", () => {
    for (const base_url of [null, "https://models.example.com/v1", "HTTPS://models.example.com:443/v1/"]) {
      const start = providerForGeneration(settings({ base_url }), env);
      expect(start).toMatchObject({ ok: true, provider: { apiKey: KEY }, pricing: { platformKey: true } });
    }
  });

  it("HARDEN-4: another base URL without its own key is refused before any call, and never gets the platform key", () => {
    const start = providerForGeneration(settings({ base_url: "https://tenant.example.net/v1" }), env);
    expect(start).toMatchObject({ ok: false, code: "provider.key_required" });
    expect(JSON.stringify(start)).not.toContain(KEY);
    expect((start as { message: string }).message).toContain("model_api_key_secret");
  });

  it("SEC-004 / ERR-008: a named key secret that does not reach the agent is a generation-start error", () => {
    for (const base_url of [null, "https://tenant.example.net/v1"]) {
      const start = providerForGeneration(settings({ base_url, api_key_secret: "TENANT_KEY" }), env, [{ name: "OTHER_KEY", value: "sk-other-1234" }]);
      expect(start).toMatchObject({ ok: false, code: "secret.missing" });
      expect(JSON.stringify(start)).not.toContain(KEY);
      expect(JSON.stringify(start)).not.toContain("sk-other-1234");
    }
  });

  it("SEC-001: the agent's own key comes from the secret it names, never the platform's", () => {
    const own = [{ name: "TENANT_KEY", value: "sk-tenant-5678" }];
    for (const base_url of [null, "https://tenant.example.net/v1"]) {
      const start = providerForGeneration(settings({ base_url, api_key_secret: "TENANT_KEY" }), env, own);
      expect(start).toMatchObject({ ok: true, provider: { apiKey: "sk-tenant-5678" }, pricing: { platformKey: false } });
    }
  });

  it("HARDEN-4: a private or metadata base URL is refused again at generation start unless the operator allows it", () => {
    const meta = providerForGeneration(settings({ base_url: "http://169.254.169.254/v1", api_key_secret: "K" }), env);
    expect(meta).toMatchObject({ ok: false, code: "provider.url_refused" });
    const local = providerForGeneration(settings({ base_url: "http://127.0.0.1:9/v1" }), env);
    expect(local).toMatchObject({ ok: false, code: "provider.url_refused" });
    const allowed = providerForGeneration(settings({ base_url: "http://127.0.0.1:9/v1" }), { ...env, ALLOW_PRIVATE_MODEL_URLS: "loopback" });
    expect(allowed).toMatchObject({ ok: false, code: "provider.key_required" });
    // The operator's own provider may live anywhere.
    const platformLocal = { MODEL_BASE_URL: "http://127.0.0.1:9/v1", MODEL_API_KEY: KEY };
    expect(providerForGeneration(settings(), platformLocal)).toMatchObject({ ok: true, provider: { baseURL: "http://127.0.0.1:9/v1", apiKey: KEY } });
  });

  it("HARDEN-4: without any provider the generation is refused as unconfigured", () => {
    expect(providerForGeneration(settings(), {})).toMatchObject({ ok: false, code: "provider.unconfigured" });
  });

  it("USAGE-005: an unpriced model on the platform's key is refused before the call unless DEFAULT_MODEL_PRICE is set", () => {
    const unpriced = providerForGeneration(settings({ model: "my-llama-70b" }), env);
    expect(unpriced).toMatchObject({ ok: false, code: "usage.unpriced_model" });
    expect((unpriced as { message: string }).message).toContain("DEFAULT_MODEL_PRICE");
    const priced = providerForGeneration(settings({ model: "my-llama-70b" }), { ...env, DEFAULT_MODEL_PRICE: '{"input": 3, "output": 15}' });
    expect(priced).toMatchObject({ ok: true, pricing: { fallback: { input: 3, output: 15 }, platformKey: true } });
    const listed = providerForGeneration(settings({ model: "my-llama-70b" }), { ...env, MODEL_PRICES: '{"my-llama": {"input": 1, "output": 1}}' });
    expect(listed.ok).toBe(true);
    // A malformed default price is no price.
    expect(providerForGeneration(settings({ model: "my-llama-70b" }), { ...env, DEFAULT_MODEL_PRICE: '{"input": -1, "output": 1}' }).ok).toBe(false);
  });

  it("HARDEN-4: agent create/update names model_base_url for a refused URL; the platform's own URL and public ones pass", () => {
    expect(modelBaseUrlIssue("http://10.0.0.5/v1", env)).toMatchObject({ field: "model_base_url", message: expect.stringContaining("private") });
    expect(modelBaseUrlIssue("https://u:p@tenant.example.net/v1", env)).toMatchObject({ field: "model_base_url" });
    expect(modelBaseUrlIssue("http://127.0.0.1:9/v1", env)?.field).toBe("model_base_url");
    expect(modelBaseUrlIssue("http://127.0.0.1:9/v1", { ...env, ALLOW_PRIVATE_MODEL_URLS: "loopback" })).toBeNull();
    expect(modelBaseUrlIssue("http://127.0.0.1:9/v1/", { MODEL_BASE_URL: "http://127.0.0.1:9/v1" })).toBeNull();
    expect(modelBaseUrlIssue("https://tenant.example.net/v1", env)).toBeNull();
    expect(modelBaseUrlIssue("https://user:pw@models.example.com/v1", env)?.message).toContain("credentials");
    expect(modelBaseUrlIssue(null, env)).toBeNull();
  });
});
