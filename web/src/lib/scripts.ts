/** The Scripts view's words and addresses: the form's parameters, authors, and links to a card; pure. */
import type { GuildEvent, ScriptAuthor } from "./api-types";
import { decodeEvent } from "./sse";

/**
 * The source's lines as text; a final newline ends the last line rather than starting an
 * empty one, as an editor numbers a file.
 *
 * @example sourceLines("a = 1\nb = 2\n") // ["a = 1", "b = 2"]
 */
export function sourceLines(source: string): string[] {
  const lines = source.split(/\r?\n/);
  if (lines.length > 1 && lines.at(-1) === "") lines.pop();
  return lines;
}

/** The id of a script's card, and the fragment that opens it. */
export const scriptAnchor = (name: string): string => `script-${name}`;

/**
 * The Scripts view's address, at a script's card when named (UI-028).
 *
 * @example scriptsHref("a1", "fetch_prices") // "/agents/a1/scripts#script-fetch_prices"
 */
export function scriptsHref(agentId: string, name?: string): string {
  return `/agents/${agentId}/scripts${name ? `#${scriptAnchor(name)}` : ""}`;
}

/** The script a fragment opens (`#script-<name>`), or null. */
export function linkedScript(hash: string): string | null {
  const prefix = `#${scriptAnchor("")}`;
  return hash.startsWith(prefix) && hash.length > prefix.length ? decodeURIComponent(hash.slice(prefix.length)) : null;
}

/**
 * A run's page opened at one of its rows (`#seq-<n>`), and the row a fragment names.
 *
 * @example runStepHref("r1", 7) // "/runs/r1#seq-7"
 */
export const runStepHref = (runId: string, seq: number | null): string => `/runs/${runId}${seq === null ? "" : `#seq-${seq}`}`;

export function linkedSeq(hash: string): number | null {
  const m = /^#seq-(\d+)$/.exec(hash);
  return m ? Number(m[1]) : null;
}

/** How a card names a version's author: the run and its step (a link that opens there), or the person's token. */
export function authorLabel(author: ScriptAuthor): { text: string; href: string | null } {
  if (author.kind === "person") return { text: author.name, href: null };
  const step = author.seq === null ? "" : `, step ${author.seq}`;
  return { text: `run ${author.run_id.slice(0, 8)}${step}`, href: runStepHref(author.run_id, author.seq) };
}

/** The form's Parameters: empty is none (run through script_run only), else a JSON object. */
export type ParsedParameters = { ok: true; value: Record<string, unknown> | null } | { ok: false; message: string };

/**
 * The Parameters text as the wire's `parameters`. Only the JSON is checked here; whether it is
 * a valid JSON Schema of type object is the API's to say (its 422 names the field).
 *
 * @example parseParameters("") // { ok: true, value: null }
 * @example parseParameters("[1]") // { ok: false, message: "Parameters must be a JSON object (a JSON Schema of type object)" }
 */
export function parseParameters(text: string): ParsedParameters {
  if (text.trim() === "") return { ok: true, value: null };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, message: `Parameters are not valid JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (value === null) return { ok: true, value: null };
  if (typeof value !== "object" || Array.isArray(value)) return { ok: false, message: "Parameters must be a JSON object (a JSON Schema of type object)" };
  return { ok: true, value: value as Record<string, unknown> };
}

/** A script's parameters as the form shows them: indented JSON, or empty for none. */
export const parametersText = (parameters: Record<string, unknown> | null | undefined): string => (parameters ? JSON.stringify(parameters, null, 2) : "");

/**
 * The name a `script_create` call wrote, from its arguments string (UI-028); null for
 * another tool or arguments without a name.
 *
 * @example createdScriptName("script_create", '{"name":"fetch_prices","source":"…"}') // "fetch_prices"
 */
export function createdScriptName(tool: string, args: string): string | null {
  if (tool !== "script_create") return null;
  try {
    const parsed: unknown = JSON.parse(args);
    const name = parsed && typeof parsed === "object" ? (parsed as { name?: unknown }).name : undefined;
    return typeof name === "string" && name.trim() !== "" ? name : null;
  } catch {
    return null;
  }
}

/** The guild event a catalog write publishes (SCRIPT-040). */
export const SCRIPTS_CHANGED = "agent.scripts.changed";

/**
 * Whether a guild stream's event says this agent's scripts changed (a create, delete or clear
 * from the API, the script tools, or another console).
 *
 * @example scriptsChangedFor({ event: "agent.scripts.changed", data: '{"agent_id":"a1","action":"clear"}' }, "a1") // true
 */
export function scriptsChangedFor(event: { event: string; data: string }, agentId: string): boolean {
  const decoded = decodeEvent<GuildEvent>(event);
  return decoded?.event === SCRIPTS_CHANGED && decoded.data.agent_id === agentId;
}
