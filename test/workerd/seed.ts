import { env } from "cloudflare:workers";
import { openDatabase } from "../../core/db/client";
import { createOrganisation } from "../../core/db/organisations";
import { refusePlatformKey } from "./canary";

/** A fresh organisation and its token in the test database. */
export async function seedOrganisation(name = "Test org") {
  const { db, close } = openDatabase(env);
  try {
    return await createOrganisation(db, name);
  } finally {
    await close();
  }
}

/** A fresh organisation with one guild: what most API tests start from. */
export async function seedGuild(name = "Test org") {
  const { token, organisation_id } = await seedOrganisation(name);
  const guild = await call("POST", "/api/guilds", { token, body: { name: "Guild" } });
  return { token, organisationId: organisation_id, guildId: guild.json.id as string };
}

/** Calls the Worker like a client would, with JSON and an optional token. */
export async function call(method: string, path: string, options: { token?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const { exports } = await import("cloudflare:workers");
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | Uint8Array | undefined;
  if (options.body !== undefined) {
    const raw = options.body;
    body = typeof raw === "string" || raw instanceof Uint8Array ? raw : JSON.stringify(raw);
    headers["content-type"] ??= "application/json";
  }
  const response = await (exports as unknown as { default: Fetcher }).default.fetch(`http://api.test${path}`, { method, headers, body });
  const text = await response.text();
  refusePlatformKey(text, `the response to ${method} ${path}`);
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = text;
  }
  return { status: response.status, json, headers: response.headers };
}
