import { app } from "../../workers/app";

/**
 * The API document as the Worker serves it, fetched from the app built in Node.
 *
 * @example const doc = JSON.parse(await apiDocumentText());
 */
export async function apiDocumentText(): Promise<string> {
  const res = await app.request("/api/openapi.json");
  if (res.status !== 200) throw new Error(`GET /api/openapi.json answered ${res.status}`);
  return `${JSON.stringify(await res.json(), null, 2)}\n`;
}
