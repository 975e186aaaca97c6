/**
 * A message's path: `POST /api/runs/:id/messages` to the row committed and sent to the run's
 * subscribers. The files in the order the request reaches them, each once (a file the work
 * comes back to, such as run-session.ts for the user row and again for the reply, is listed
 * where its part in the path is told). Helpers that only format, parse or log for the step
 * that calls them are left out; they are in that step's imports.
 */
import type { Path } from "./types";

export const messagePath: Path = {
  id: "message",
  title: "A message, from the route to the subscriber",
  intro:
    "`POST /api/runs/:id/messages` with a bearer token and `{ content }`: the answer is 202 with the user row's seq as soon as the " +
    "generation is started; the reply's rows reach whoever holds the run's stream (`GET /api/runs/:id/events`, served by the same " +
    "object), each after its INSERT committed.",
  span: "from the Worker's entry to the subscriber's stream",
  steps: [
    {
      file: "workers/index.ts",
      what: "The Worker's `fetch`; imports the API (`app.ts`) on the first request, so an isolate that serves only objects never evaluates it.",
    },
    {
      file: "workers/app.ts",
      what: "The Hono app: the middleware below in this order, then `/api/runs` mounted on `runRoutes`.",
      reached: { kind: "import" },
    },
    {
      file: "workers/security-headers.ts",
      what: "`securityHeaders`: the security headers set on whatever answer comes back.",
      reached: { kind: "import", from: "workers/app.ts" },
      middleware: true,
    },
    {
      file: "workers/canonical-ids.ts",
      what: "`canonicalIds`: the run id parsed as a uuid (a malformed one is 404 `run.not_found`, one in capitals dispatched again in lower case).",
      reached: { kind: "import", from: "workers/app.ts" },
      middleware: true,
    },
    {
      file: "workers/rate-limit.ts",
      what: "`callerRateLimit` per token and address before the database; after authentication, `rateLimit` per organisation (429 `rate_limited`).",
      reached: { kind: "import", from: "workers/app.ts" },
      middleware: true,
    },
    {
      file: "workers/middleware.ts",
      what: "`database` opens the request's connection (Neon's HTTP path); `authenticate` checks the bearer token and sets the organisation.",
      reached: { kind: "import", from: "workers/app.ts" },
      middleware: true,
    },
    {
      file: "workers/api/runs.ts",
      what: "The route: the run in the caller's organisation, a task run refused (409 `run.task_run`), the attachments resolved, then the agent's object asked.",
      reached: { kind: "import", from: "workers/app.ts" },
    },
    {
      file: "workers/http/contract.ts",
      what: "`pathId` and `jsonBody(MessageCreate)`: the id and the body read within bounds and validated before the handler runs (422 `validation.failed`).",
      reached: { kind: "import", from: "workers/api/runs.ts" },
    },
    {
      file: "workers/api/run-queries.ts",
      what: "`findRun`: the run in the caller's organisation, or 404.",
      reached: { kind: "import", from: "workers/api/runs.ts" },
    },
    {
      file: "workers/api/attachment-refs.ts",
      what: "`attachmentRefs`: the attachments named are the organisation's own.",
      reached: { kind: "import", from: "workers/api/runs.ts" },
    },
    {
      file: "workers/http/errors.ts",
      what: "`settle`: the object's Outcome answered as 2xx or as an API error.",
      reached: { kind: "import", from: "workers/api/runs.ts" },
    },
    {
      file: "bindings/objects.ts",
      what: "`agentObject(env, agentId)`: the stub of the agent's object, `idFromName(agentId)`, with the database's location hint.",
      reached: { kind: "import", from: "workers/api/runs.ts" },
    },
    {
      file: "durable-objects/agent/agent-object.ts",
      what: "`postMessage` on the object's RPC surface, handed to the operator's trigger in its rooms.",
      reached: { kind: "rpc", from: "workers/api/runs.ts", method: "postMessage", stub: "agentObject" },
    },
    {
      file: "durable-objects/agent/rooms.ts",
      what: "The rooms, built once when the object starts: the run context (`openRunContext`), `DirectRuns`, the lifecycle.",
      reached: { kind: "import" },
    },
    {
      file: "durable-objects/agent/state/open-context.ts",
      what: "`openRunContext`: the one builder of the context for the agent's and the task's objects: lock, deadlines, connection, hub, and the session cache given the hub.",
      reached: { kind: "import", from: "durable-objects/agent/rooms.ts" },
    },
    {
      file: "durable-objects/agent/triggers/direct.ts",
      what: "`postMessage`: recovery first, 409 `agent.busy` while any run generates, the run's refusals; then the lock claimed, the user row committed with the generation's start reads, the loop started.",
      reached: { kind: "import", from: "durable-objects/agent/rooms.ts" },
    },
    {
      file: "durable-objects/agent/state/session-cache.ts",
      what: "`sessions.get(runId)`: the run's session from memory, or loaded once from Postgres.",
      reached: { kind: "import", from: "durable-objects/agent/state/open-context.ts" },
    },
    {
      file: "durable-objects/agent/state/generation-lock.ts",
      what: "`lock.claim(runId, generation)`: the agent's one generation, its lease renewed by the heartbeat deadline.",
      reached: { kind: "import", from: "durable-objects/agent/state/open-context.ts" },
    },
    {
      file: "durable-objects/agent/run/lifecycle.ts",
      what: "`generate`: the loop in the object's background (`waitUntil`): one turn, then what its outcome says: the continuation after a hand-off, or the end.",
      reached: { kind: "import", from: "durable-objects/agent/triggers/direct.ts" },
    },
    {
      file: "durable-objects/agent/run/turn.ts",
      what: "`runTurn`, the one turn of every run (chat, group, schedule, task): the inputs, the generation through its harness, the errors published, one outcome (step, hand-off, end, error, limit).",
      reached: { kind: "import", from: "durable-objects/agent/run/lifecycle.ts" },
    },
    {
      file: "durable-objects/agent/generation/inputs.ts",
      what: "`generationInputs`: provider and key, offered tools, opened secrets, spend, Memory, the box's access.",
      reached: { kind: "import", from: "durable-objects/agent/run/turn.ts" },
    },
    {
      file: "durable-objects/agent/generation/generation.ts",
      what: "`runGeneration` (the platform's harness): up to `max_steps` model calls; each reply committed with its usage and cost, its tool calls run one at a time, each result committed.",
      reached: { kind: "import", from: "durable-objects/agent/run/turn.ts" },
    },
    {
      file: "core/projection/projection.ts",
      what: "`planProjection`: the request view of the run's rows, old tool results stubbed, within `max_input_tokens`.",
      reached: { kind: "import", from: "durable-objects/agent/generation/generation.ts" },
    },
    {
      file: "durable-objects/agent/generation/model-call.ts",
      what: "`callModel`: the streamed chat completion from the provider (HTTPS), its answer capped; deltas published as they come.",
      reached: { kind: "import", from: "durable-objects/agent/generation/generation.ts" },
    },
    {
      file: "durable-objects/agent/state/run-session.ts",
      what: "`commit`: the row written at the run's next seq, riding out a database outage, then kept in memory, then published: nothing is sent before it committed.",
      reached: { kind: "import", from: "durable-objects/agent/generation/generation.ts" },
    },
    {
      file: "core/db/transcript.ts",
      what: "The INSERT into `messages`: `appendOpeningRow` (the user row, with the start reads), `commitAssistantRow` (the reply, with its usage, and the run's ending when it ends the generation), `appendRow` (a tool result).",
      reached: { kind: "import", from: "durable-objects/agent/state/run-session.ts" },
    },
    {
      file: "durable-objects/common/sse-hub.ts",
      what: "`publishRow` (the session cache's hub): the committed row to each of the run's subscribers; a new subscriber is replayed from Postgres first.",
      reached: { kind: "import", from: "durable-objects/agent/state/open-context.ts" },
    },
    {
      file: "durable-objects/common/sse-subscriber.ts",
      what: "The subscriber's bounded queue: the event's bytes into the stream the object answered `GET /api/runs/:id/events` with.",
      reached: { kind: "import", from: "durable-objects/common/sse-hub.ts" },
    },
    {
      file: "durable-objects/agent/state/context.ts",
      what: "At the generation's end, `runEnded`: the triggers hear of it and the box is told, before the lock is released; then `agentIdle`.",
      reached: { kind: "import", from: "durable-objects/agent/run/lifecycle.ts" },
    },
  ],
};
