/**
 * The secret tools (SEC-011, SEC-012, OP-SEC-5, OP-SEC-6): `secret_store` keeps a value the
 * agent holds as a secret of its own; `secret_request` asks the operator for one. A stored
 * secret reaches the agent as an environment variable from its next generation, not the
 * current one (its secrets were resolved when the generation started).
 */
import * as z from "zod";
import type { ToolCall } from "../projection/types";
import { secretName, secretValue } from "../validation/secret";
import type { ToolDefinition } from "./types";

export const SECRET_STORE = "secret_store";
export const SECRET_REQUEST = "secret_request";

/** What replaces a stored value in the assistant row's arguments (OP-SEC-8). */
export const REDACTED_ARGUMENT = "[redacted]";

const description = z.string().trim().max(2000).describe("What the secret is for, as the operator will read it");

/**
 * secret_store: stores or updates a secret granted to this agent only.
 *
 * @example secret_store({ name: "SHOP_API_KEY", description: "Shop API", value: "sk_..." }) // "Stored secret SHOP_API_KEY (created). …"
 */
export const secretStore: ToolDefinition<{ name: string; description: string; value: string }> = {
  name: SECRET_STORE,
  description:
    "Store a secret value (an API key, a password) as a secret of your own, named as an environment variable. It is in your sandbox's environment under that name from your next generation on. The value is never shown again, not even to you.",
  binding: SECRET_STORE,
  parameters: z.strictObject({
    name: secretName.describe("Environment variable name, e.g. SHOP_API_KEY"),
    description: description.default(""),
    value: secretValue.describe("The secret value"),
  }),
  async execute(args, ctx) {
    if (!ctx.secrets) throw new Error("secret_store is not available in this run");
    const { created } = await ctx.secrets.store(args);
    return {
      content: `Stored secret ${args.name} (${created ? "created" : "updated"}). It reaches only you, as the environment variable ${args.name} from your next generation on.`,
    };
  },
};

/**
 * secret_request: asks the operator, in the direct chat, for a secret; returns at once.
 *
 * @example secret_request({ name: "GITHUB_TOKEN", description: "GitHub", reason: "to open the pull request" }) // "requested: …"
 */
export const secretRequest: ToolDefinition<{ name: string; description: string; reason: string }> = {
  name: SECRET_REQUEST,
  description:
    "Ask the operator for a secret you need (an API key, a password). The request appears in this chat; when the operator answers, the secret reaches you as the environment variable of that name from your next generation on. Returns at once: do not wait for it in this turn.",
  binding: SECRET_REQUEST,
  parameters: z.strictObject({
    name: secretName.describe("Environment variable name, e.g. GITHUB_TOKEN"),
    description: description.default(""),
    reason: z.string().trim().min(1).max(2000).describe("Why you need it, as the operator will read it"),
  }),
  async execute(args) {
    return {
      content: `requested: the operator is asked for ${args.name}. Once answered it is in your environment as ${args.name} from your next generation on.`,
      metadata: { secret_request: { name: args.name, description: args.description, reason: args.reason } },
    };
  },
};

export const SECRET_STORE_TOOLS = [secretStore] as const;
export const SECRET_REQUEST_TOOLS = [secretRequest] as const;

/**
 * The assistant row's tool calls as they may be stored: each secret_store value replaced
 * by "[redacted]" (arguments that are not a JSON object are replaced whole, since they may
 * hold it), and the values taken out, for the run's redaction set.
 *
 * @example storedToolCalls([{ id, type: "function", function: { name: "secret_store", arguments: '{"name":"K","value":"v4lue"}' } }])
 * // { calls: [… arguments: '{"name":"K","value":"[redacted]"}'], values: [{ name: "K", value: "v4lue" }] }
 */
export function storedToolCalls(calls: readonly ToolCall[]): { calls: ToolCall[]; values: { name: string; value: string }[] } {
  const values: { name: string; value: string }[] = [];
  const stored = calls.map((call) => {
    if (call.function.name !== SECRET_STORE) return call;
    let args: unknown;
    try {
      args = JSON.parse(call.function.arguments);
    } catch {
      args = undefined;
    }
    const object = args !== null && typeof args === "object" && !Array.isArray(args) ? (args as Record<string, unknown>) : undefined;
    if (!object) {
      if (call.function.arguments.trim()) values.push({ name: SECRET_STORE, value: call.function.arguments });
      return { ...call, function: { ...call.function, arguments: JSON.stringify({ arguments: REDACTED_ARGUMENT }) } };
    }
    if (!("value" in object)) return call;
    if (typeof object.value === "string") values.push({ name: typeof object.name === "string" ? object.name : SECRET_STORE, value: object.value });
    return { ...call, function: { ...call.function, arguments: JSON.stringify({ ...object, value: REDACTED_ARGUMENT }) } };
  });
  return { calls: stored, values };
}
