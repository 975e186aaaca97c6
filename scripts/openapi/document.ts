/** What Node needs of the Worker's Hono app: its request entry point and its route table. */
export interface WorkerApp {
  request(path: string): Response | Promise<Response>;
  routes: Array<{ method: string; path: string }>;
}

/**
 * The Worker's app, built in Node. It is loaded by address, not imported: its sources are
 * type-checked under tsconfig.worker.json, against the Workers runtime's types, which
 * clash with Node's in this config.
 */
export async function workerApp(): Promise<WorkerApp> {
  const module: { app: WorkerApp } = await import(new URL("../../workers/app.ts", import.meta.url).href);
  return module.app;
}

/**
 * The API document as the Worker serves it, fetched from the app built in Node.
 *
 * @example const doc = JSON.parse(await apiDocumentText());
 */
export async function apiDocumentText(): Promise<string> {
  const res = await (await workerApp()).request("/api/openapi.json");
  if (res.status !== 200) throw new Error(`GET /api/openapi.json answered ${res.status}`);
  return `${JSON.stringify(await res.json(), null, 2)}\n`;
}
