import { inject } from "vitest";

/** A JSON call to the running stack's API with the operator token (or the one given). */
export async function api(method: string, path: string, options: { token?: string | null; body?: unknown; base?: string } = {}) {
  const headers: Record<string, string> = {};
  const token = options.token === undefined ? inject("token") : options.token;
  if (token) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${options.base ?? inject("apiUrl")}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = text;
  }
  return { status: response.status, json, text, headers: response.headers };
}
