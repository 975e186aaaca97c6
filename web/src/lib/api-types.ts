import type { paths } from "./api-schema";

/**
 * The API's wire types under the console's names, all taken from the generated schema
 * (api-schema.d.ts, `npm run api:types`): none is written by hand.
 */

/** The JSON body of one documented answer. */
type Json<P extends keyof paths, M extends keyof paths[P], S extends number> = paths[P][M] extends {
  responses: { [K in S]: { content: { "application/json": infer B } } };
}
  ? B
  : never;

/** The JSON body an operation takes. */
type RequestJson<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: { content: { "application/json": infer B } };
}
  ? B
  : never;

export type Guild = Json<"/api/guilds/{id}", "get", 200>;
export type Agent = Json<"/api/agents/{id}", "get", 200>;
export type AgentCreate = RequestJson<"/api/guilds/{id}/agents", "post">;
export type AgentStatus = Json<"/api/agents/{id}/status", "get", 200>;
export type Memory = Json<"/api/agents/{id}/memory", "get", 200>;
export type Run = Json<"/api/runs/{id}", "get", 200>;
export type RunError = Run["errors"][number];
/** A committed row of a run (GET messages, SSE `message`). */
export type Row = Json<"/api/runs/{id}/messages", "get", 200>["data"][number];
export type PromptReplay = Json<"/api/runs/{id}/messages/{seq}/prompt", "get", 200>;
export type Schedule = Json<"/api/schedules/{id}", "get", 200>;
export type ScheduleCreate = RequestJson<"/api/agents/{id}/schedules", "post">;
export type WakeWindow = NonNullable<Schedule["wake_window"]>;
export type Usage = Json<"/api/usage", "get", 200>;
export type Counters = Usage["totals"];
export type Organisation = Json<"/api/organisation", "get", 200>;
export type ChatPage = Json<"/api/guilds/{id}/chat", "get", 200>;
/** A public row of the guild's chat (GET chat, SSE `message`). */
export type GroupMessage = ChatPage["data"][number];
/** An API token as listed: never its secret. */
export type ApiToken = Json<"/api/tokens", "get", 200>["data"][number];
/** The create answer: the token and, this once, its secret. */
export type CreatedToken = Json<"/api/tokens", "post", 201>;
