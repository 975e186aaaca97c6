import { expect } from "vitest";
import { createOrganisation } from "../../../core/db/organisations";
import { withDatabase } from "../../../scripts/stack/operator";
import { admin } from "../../../scripts/forge/test-support";
import type { containerStack } from "../container-stack";
import { api } from "../http";

/** The container stack every section of the hostile-tenant file shares. */
export type Boxes = ReturnType<typeof containerStack>;

/** A JSON call to the stack's API as one organisation (its token). */
export type Caller = (method: string, path: string, body?: unknown) => ReturnType<typeof api>;

/**
 * Another organisation on the same stack, with a token of its own: the attacker (or the
 * victim) of a section. Made straight in the stack's database, as `npm run bootstrap` does.
 *
 * @example
 *   const them = await organisation(boxes, "Mallory");
 *   await them.call("GET", `/api/agents/${ours}`) // 404
 */
export async function organisation(boxes: Boxes, name: string): Promise<{ id: string; token: string; call: Caller }> {
  const created = await withDatabase(boxes.stack.databaseUrl, (db) => createOrganisation(db, name));
  expect(created.token).toMatch(/^gld_/);
  const call: Caller = (method, path, body) => api(method, path, { base: boxes.target.base, token: created.token, body });
  return { id: created.organisation_id, token: created.token, call };
}

/** A call to the stack's local forge admin API (repositories, installations, tokens). */
export const forgeAdmin = (boxes: Boxes) => (method: string, path: string, body?: unknown) => admin(boxes.stack.forge!.adminUrl, method, path, body);
