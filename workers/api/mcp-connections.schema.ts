import * as z from "zod";
import { SLUG_PATTERN } from "../../core/mcp/names";
import { pageOf } from "../http/page.schema";
import { grant, grantCreate } from "./grants.schema";
import { McpAuthorizationServer } from "./mcp-oauth.schema";

/** A bearer token or API key: sealed whole, never returned. */
const token = z.string().min(1).max(8192).meta({ writeOnly: true });

const slug = z
  .string()
  .regex(SLUG_PATTERN, "must start with a lowercase letter and hold only a-z, 0-9, _ and - (at most 24 characters)")
  .refine((s) => !s.includes("__"), "must not contain __")
  .describe("Prefix of every tool name the model sees: <slug>__<tool>. Fixed once created");

const url = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .describe("The server's MCP endpoint (Streamable HTTP, or the old HTTP+SSE endpoint)");

export const McpAuthInput = z
  .discriminatedUnion("kind", [
    z.strictObject({ kind: z.literal("none") }),
    z.strictObject({ kind: z.literal("bearer"), token }),
    z
      .strictObject({
        kind: z.literal("oauth"),
        client: z
          .strictObject({
            id: z.string().min(1).max(512).describe("The client_id the authorization server issued"),
            secret: z.string().min(1).max(4096).optional().describe("Its client_secret, if it has one: sealed, never answered"),
            auth_method: z
              .enum(["client_secret_basic", "client_secret_post", "none"])
              .optional()
              .describe("How it authenticates at the token endpoint (default client_secret_basic with a secret, none without)"),
          })
          .optional()
          .describe(
            "A client registered with the server's authorization server by the operator, for servers without dynamic registration; its redirect URI must be the one the authorize call answers",
          ),
      })
      .describe("Records the kind; authorise through the connection's OAuth flow"),
  ])
  .meta({ id: "McpAuthInput" });

/**
 * Body of `POST /api/mcp/connections`. With a preset, url and auth default to the preset's.
 *
 * @example McpConnectionCreate.parse({ slug: "coingecko", preset: "coingecko" })
 */
export const McpConnectionCreate = z
  .strictObject({
    slug,
    url: url.optional(),
    auth: McpAuthInput.optional(),
    preset: z.string().max(64).optional().describe("Key of a catalog preset (GET /api/mcp/presets): only its curated tools start enabled"),
    org_wide: z.boolean().default(false).describe("true: reaches every agent of the organisation; false: only its grants"),
  })
  .meta({ id: "McpConnectionCreate" });

/** Body of `PATCH /api/mcp/connections/:id`: any subset, at least one. The slug is fixed. */
export const McpConnectionPatch = z
  .strictObject({
    url,
    token: token.describe("A new bearer token (bearer connections only)"),
    org_wide: z.boolean(),
    tools: z
      .array(z.strictObject({ remote_name: z.string().min(1).max(512), enabled: z.boolean() }))
      .max(1000)
      .describe("Tools to enable or disable, by the name the server gives them"),
  })
  .partial()
  .refine((body) => Object.keys(body).length > 0, { message: "no field to change" })
  .meta({ id: "McpConnectionPatch" });

/** Body of `POST /api/mcp/connections/:id/grants`: exactly one guild or one agent. */
export const McpGrantCreate = grantCreate("McpGrantCreate");

export const McpGrant = grant("McpGrant");

const json = z.record(z.string(), z.unknown());

export const McpTool = z
  .object({
    name: z.string().describe("The name the model sees: <slug>__<tool>"),
    remote_name: z.string().describe("The name the server gives it"),
    enabled: z.boolean(),
    position: z.int(),
    from_server: z
      .object({
        title: z.string().nullable(),
        description: z.string(),
        input_schema: json,
        output_schema: json.nullable(),
        annotations: json.nullable(),
      })
      .describe("Untrusted: as the server sent it at the last discovery"),
  })
  .meta({ id: "McpTool" });

/** A connection as the API returns it: never its token. */
export const McpConnection = z
  .object({
    id: z.uuid(),
    slug: z.string(),
    url: z.string(),
    preset: z.string().nullable(),
    transport: z.enum(["streamable_http", "sse"]).nullable().describe("The transport discovery found; null until it has"),
    auth: z.object({
      kind: z.enum(["none", "bearer", "oauth"]),
      has_credential: z.boolean(),
      client: z
        .object({ id: z.string(), registered_by: z.enum(["platform", "operator"]) })
        .optional()
        .describe("An OAuth connection's client: registered by the platform (RFC 7591) or given by the operator"),
      authorization_server: McpAuthorizationServer.optional().describe(
        "An OAuth connection's authorization server, once an authorisation discovered it: where the operator signs in and where tokens come from",
      ),
    }),
    org_wide: z.boolean(),
    status: z.enum(["pending", "ready", "needs_auth", "error"]),
    last_error: z.string().nullable().describe("Why the last discovery failed (a code and a message)"),
    from_server: z
      .object({ name: z.string().nullable(), version: z.string().nullable(), title: z.string().nullable(), instructions: z.string().nullable() })
      .describe("Untrusted: the server's own info and instructions as it sent them; never part of a prompt"),
    tools: z.array(McpTool),
    grants: z.array(McpGrant),
    discovered_at: z.iso.datetime().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "McpConnection" });

export const McpConnectionPage = pageOf(McpConnection, "McpConnectionPage");

export type McpConnectionCreate = z.infer<typeof McpConnectionCreate>;
export type McpConnectionPatch = z.infer<typeof McpConnectionPatch>;
