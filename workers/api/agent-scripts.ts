import { eq } from "drizzle-orm";
import { type Context, Hono } from "hono";
import * as z from "zod";
import type { Env } from "../../bindings/env";
import { agentObject } from "../../bindings/objects";
import { publishScriptsChanged } from "../../bindings/script-events";
import { mcpToolNamesAmong } from "../../core/db/mcp";
import { apiTokens } from "../../core/db/schema";
import { ScriptOwnerMissing, scriptCatalog, scriptVersionWire, scriptWire } from "../../core/db/scripts";
import { couldNameMcpTool } from "../../core/mcp/names";
import { describeError, logEvent } from "../../core/output/log";
import { SCRIPT_NAME_PATTERN, validateScriptWrite } from "../../core/scripts/rules";
import { type ScriptAuthor, type ScriptChange, ScriptLimitReached, type ScriptWrite } from "../../core/scripts/types";
import { nativeToolNames } from "../../core/tools/registry";
import type { FieldIssue } from "../../core/validation/issues";
import type { AppEnv } from "../http/context";
import { failure, jsonBody, ok, operation, pathId } from "../http/contract";
import { ApiError, notFound, validationFailed } from "../http/errors";
import { Script, ScriptCreateBody, ScriptHistory, ScriptList, ScriptRecipeBody } from "./agent-scripts.schema";
import { findAgent } from "./agents";

/**
 * `/api/agents/:id/scripts`: the agent's script catalog (SCRIPT-041..045). Every committed
 * write is announced on the guild's stream and to the agent's object (SCRIPT-040).
 */

type AgentRow = Awaited<ReturnType<typeof findAgent>>;

/** A path name that cannot be a script's is simply not found, as a missing one is. */
const byName = pathId("agent", { name: { schema: z.string().regex(SCRIPT_NAME_PATTERN).describe("The script's name"), resource: "script" } });

const AGENT_OR_SCRIPT_MISSING = {
  404: failure("No such agent in the caller's organisation, or it has no script of that name (agent.not_found, script.not_found)"),
};
const REFUSED_WRITE = {
  422: failure(
    "A refused write: a bad field (validation.failed; each named in details.fields), or a new name past the agent's max_scripts " +
      '(script.limit_reached, "this agent is limited to N scripts"; details.limit)',
  ),
};

const scriptOp = (op: Omit<Parameters<typeof operation>[0], "tag">) => operation({ tag: "Scripts", ...op });

/** Names no script may take: every native tool's, whatever the agent's flags (SCRIPT-009, OP-SCRIPT-10). */
const NATIVE_NAMES = nativeToolNames();

/**
 * The names these writes may not take: the native tools' and those of the organisation's MCP
 * tools among them (SCRIPT-009), whichever agent holds a grant: a grant given later must not
 * meet a script of the same name.
 */
async function takenNames(c: Context<AppEnv>, names: unknown[]): Promise<ReadonlySet<string>> {
  // Every MCP tool name holds the separator: other names need no look-up.
  const asked = names.filter((name): name is string => typeof name === "string" && couldNameMcpTool(name));
  const connected = await mcpToolNamesAmong(c.get("db"), c.get("organisationId"), asked);
  return connected.size ? new Set([...NATIVE_NAMES, ...connected]) : NATIVE_NAMES;
}

/** The write, checked by the catalog's rules; 422 naming each bad field, under `prefix` in a recipe. */
function checked(body: unknown, taken: ReadonlySet<string>, prefix = ""): { write: ScriptWrite | null; issues: FieldIssue[] } {
  const result = validateScriptWrite(body, taken);
  if (result.ok) return { write: result.value, issues: [] };
  return { write: null, issues: result.issues.map((i) => ({ field: prefix + i.field, message: i.message })) };
}

/** The person writing: the caller's API token, named as the console lists it. */
async function personAuthor(c: Context<AppEnv>): Promise<ScriptAuthor> {
  const tokenId = c.get("tokenId");
  const [token] = await c.get("db").select({ name: apiTokens.name }).from(apiTokens).where(eq(apiTokens.id, tokenId)).limit(1);
  return { kind: "person", token_id: tokenId, name: token?.name ?? "" };
}

/** Writes through the catalog; the cap answers 422 script.limit_reached (SCRIPT-013, ERR-016). */
async function write(c: Context<AppEnv>, agent: AgentRow, writes: ScriptWrite[]) {
  try {
    return await scriptCatalog.write(c.get("db"), agent.id, writes, await personAuthor(c));
  } catch (error) {
    if (error instanceof ScriptLimitReached) throw new ApiError(422, "script.limit_reached", error.message, { limit: error.limit });
    if (error instanceof ScriptOwnerMissing) throw notFound("agent");
    throw error;
  }
}

/**
 * Tells the guild's stream and the agent's object about a committed change. Best effort: the
 * write stands either way, so a failure is logged, never answered.
 */
async function announce(env: Env, agent: AgentRow, changes: ScriptChange[]): Promise<void> {
  const sends = changes.flatMap((change) => [
    { operation: "script.change_event", done: publishScriptsChanged(env, agent.guildId, agent.id, change) },
    { operation: "script.change_notify", done: agentObject(env, agent.id).scriptsChanged(change) },
  ]);
  const settled = await Promise.allSettled(sends.map((s) => s.done));
  settled.forEach((result, i) => {
    if (result.status === "rejected") {
      logEvent("warn", { operation: sends[i]!.operation, agent_id: agent.id, guild_id: agent.guildId, ...describeError(result.reason) });
    }
  });
}

async function ownedAgent(c: Context<AppEnv>, id: string) {
  return findAgent(c.get("db"), c.get("organisationId"), id);
}

export const agentScriptRoutes = new Hono<AppEnv>()
  .get(
    "/:id/scripts",
    scriptOp({
      operationId: "listAgentScripts",
      summary: "The agent's scripts, by name, each with its source and display_path",
      responses: { 200: ok("The scripts", ScriptList) },
      notFound: "agent",
    }),
    pathId("agent"),
    async (c) => {
      const agent = await ownedAgent(c, c.req.valid("param").id);
      return c.json({ data: (await scriptCatalog.list(c.get("db"), agent.id)).map(scriptWire) });
    },
  )
  .post(
    "/:id/scripts",
    scriptOp({
      operationId: "writeAgentScript",
      summary: "Create a script, or replace the one of that name (its version goes up)",
      responses: { 201: ok("The script as written", Script) },
      notFound: "agent",
      body: true,
      objects: true,
      errors: REFUSED_WRITE,
    }),
    pathId("agent"),
    jsonBody(ScriptCreateBody),
    async (c) => {
      const agent = await ownedAgent(c, c.req.valid("param").id);
      const body = c.req.valid("json");
      const { write: valid, issues } = checked(body, await takenNames(c, [body.name]));
      if (!valid) throw validationFailed(issues);
      const [written] = await write(c, agent, [valid]);
      await announce(c.env, agent, [{ action: "create", name: valid.name }]);
      return c.json(scriptWire(written!.row), 201);
    },
  )
  .post(
    "/:id/scripts/recipe",
    scriptOp({
      operationId: "applyAgentScriptRecipe",
      summary: "Write several scripts at once: all of them, or none when one is refused (a recipe)",
      description: "Refused as a whole (422) when one script is invalid, a name appears twice, or the new names would pass the agent's max_scripts.",
      responses: { 201: ok("The scripts as written, in the recipe's order", ScriptList) },
      notFound: "agent",
      body: true,
      objects: true,
      errors: REFUSED_WRITE,
    }),
    pathId("agent"),
    jsonBody(ScriptRecipeBody),
    async (c) => {
      const agent = await ownedAgent(c, c.req.valid("param").id);
      const writes: ScriptWrite[] = [];
      const issues: FieldIssue[] = [];
      const seen = new Set<string>();
      const { scripts } = c.req.valid("json");
      const taken = await takenNames(
        c,
        scripts.map((body) => body.name),
      );
      scripts.forEach((body, i) => {
        const result = checked(body, taken, `scripts.${i}.`);
        issues.push(...result.issues);
        if (seen.has(body.name)) issues.push({ field: `scripts.${i}.name`, message: `"${body.name}" appears twice in the recipe` });
        seen.add(body.name);
        if (result.write) writes.push(result.write);
      });
      if (issues.length > 0) throw validationFailed(issues);
      const written = await write(c, agent, writes);
      await announce(
        c.env,
        agent,
        writes.map((w) => ({ action: "create", name: w.name })),
      );
      return c.json({ data: written.map((w) => scriptWire(w.row)) }, 201);
    },
  )
  .get(
    "/:id/scripts/:name",
    scriptOp({
      operationId: "getAgentScript",
      summary: "One script with its source",
      responses: { 200: ok("The script", Script) },
      errors: AGENT_OR_SCRIPT_MISSING,
    }),
    byName,
    async (c) => {
      const { id, name } = c.req.valid("param");
      const agent = await ownedAgent(c, id);
      const row = await scriptCatalog.get(c.get("db"), agent.id, name);
      if (!row) throw notFound("script");
      return c.json(scriptWire(row));
    },
  )
  .get(
    "/:id/scripts/:name/history",
    scriptOp({
      operationId: "getAgentScriptHistory",
      summary: "A script's versions, newest first, each with who wrote it",
      responses: { 200: ok("The versions", ScriptHistory) },
      errors: AGENT_OR_SCRIPT_MISSING,
    }),
    byName,
    async (c) => {
      const { id, name } = c.req.valid("param");
      const agent = await ownedAgent(c, id);
      const versions = await scriptCatalog.history(c.get("db"), agent.id, name);
      if (!versions) throw notFound("script");
      return c.json({ data: versions.map(scriptVersionWire) });
    },
  )
  .delete(
    "/:id/scripts/:name",
    scriptOp({
      operationId: "deleteAgentScript",
      summary: "Delete a script: active runs drop it from their snapshots and it leaves the agent's home",
      responses: { 204: ok("Deleted") },
      objects: true,
      errors: AGENT_OR_SCRIPT_MISSING,
    }),
    byName,
    async (c) => {
      const { id, name } = c.req.valid("param");
      const agent = await ownedAgent(c, id);
      // OP-SCRIPT-3: a name the agent does not have is not found.
      if (!(await scriptCatalog.remove(c.get("db"), agent.id, name))) throw notFound("script");
      await announce(c.env, agent, [{ action: "delete", name }]);
      return c.body(null, 204);
    },
  )
  .delete(
    "/:id/scripts",
    scriptOp({
      operationId: "clearAgentScripts",
      summary: "Delete every script of the agent",
      responses: { 204: ok("Deleted") },
      notFound: "agent",
      objects: true,
    }),
    pathId("agent"),
    async (c) => {
      const agent = await ownedAgent(c, c.req.valid("param").id);
      await scriptCatalog.clear(c.get("db"), agent.id);
      await announce(c.env, agent, [{ action: "clear" }]);
      return c.body(null, 204);
    },
  );
