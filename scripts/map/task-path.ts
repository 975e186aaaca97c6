/**
 * A task's path: `POST /api/guilds/:id/tasks` to the draft pull request of its first run.
 * The files in the order the work reaches them; a file it comes back to is listed again
 * there (the count takes each file once). Task room → the agent's run and generation rooms →
 * task room: the task object drives the agent's rooms with a context of its own (decision 0017).
 * Helpers that only format, parse or log for the step that calls them are left out.
 */
import type { Edge, Path } from "./types";

/** The box's git reaches the gateway: the intercepted host in production, the Worker's route on a local engine. */
const boxGit: Edge = {
  kind: "http",
  from: "containers/code/task-git.ts",
  request: "git smart HTTP to http://git.gateway.internal/tasks/<taskId>/<owner>/<repo>.git",
  sent: { file: "core/tasks/credential.ts", marker: "GATEWAY_HOST" },
  served: { file: "durable-objects/sandbox/sandbox-container.ts", marker: "GATEWAY_HOST" },
};
const gatewayRoute = {
  file: "workers/git-gateway.ts",
  what: "On a local engine, whose boxes' requests the Container class cannot intercept: the same handler as the Worker's route `/api/git-gateway/…` (GIT_GATEWAY_URL).",
  reached: {
    kind: "http",
    from: "containers/code/task-git.ts",
    request: "git smart HTTP to GIT_GATEWAY_URL/tasks/<taskId>/<owner>/<repo>.git",
    sent: { file: "durable-objects/task/run-driver.ts", marker: "GIT_GATEWAY_URL" },
    served: { file: "workers/app.ts", marker: "gitGatewayRoute" },
  },
} satisfies { file: string; what: string; reached: Edge };

export const taskPath: Path = {
  id: "task",
  title: "A task, from filing to its draft pull request",
  intro:
    "`POST /api/guilds/:id/tasks` with `{ agent_id, repository_id, title, description }`: the answer is 201 with the task queued; the " +
    "organisation's queue starts its run, the task's object drives the run's turns with the agent's rooms, the box's git goes through " +
    "the gateway, and after the first turn whose push puts the task branch ahead of the base the driver opens a draft pull request.",
  span: "from the Worker's entry to the draft pull request",
  steps: [
    { file: "workers/index.ts", what: "The Worker's `fetch`; imports the API (`app.ts`) on the first request." },
    { file: "workers/app.ts", what: "The Hono app: the middleware below, then `/api/guilds` mounted on `guildTaskRoutes`.", reached: { kind: "import" } },
    {
      file: "workers/security-headers.ts",
      what: "`securityHeaders` on the answer.",
      reached: { kind: "import", from: "workers/app.ts" },
      middleware: true,
    },
    {
      file: "workers/canonical-ids.ts",
      what: "`canonicalIds`: the guild id parsed as a uuid.",
      reached: { kind: "import", from: "workers/app.ts" },
      middleware: true,
    },
    {
      file: "workers/rate-limit.ts",
      what: "`callerRateLimit`, and `rateLimit` per organisation after authentication.",
      reached: { kind: "import", from: "workers/app.ts" },
      middleware: true,
    },
    {
      file: "workers/middleware.ts",
      what: "`database` and `authenticate`: the request's connection and the caller's organisation.",
      reached: { kind: "import", from: "workers/app.ts" },
      middleware: true,
    },
    {
      file: "workers/api/guild-tasks.ts",
      what: "The route `POST /api/guilds/:id/tasks`: the guild, a coding agent of it, a repository of it; the task filed, the queue woken; 201.",
      reached: { kind: "import", from: "workers/app.ts" },
    },
    {
      file: "workers/http/contract.ts",
      what: "`pathId` and `jsonBody(TaskCreate)`: the id and the body validated.",
      reached: { kind: "import", from: "workers/api/guild-tasks.ts" },
    },
    { file: "workers/api/guilds.ts", what: "`findGuild`: the caller's guild, or 404.", reached: { kind: "import", from: "workers/api/guild-tasks.ts" } },
    {
      file: "core/db/task-rows.ts",
      what: "`createTask`: the row, queued, its key `<PREFIX>-<n>` taken from the repository's counter in the same statement.",
      reached: { kind: "import", from: "workers/api/guild-tasks.ts" },
    },
    {
      file: "workers/api/tasks.ts",
      what: "`wakeQueue`, re-exported for the routes.",
      reached: { kind: "import", from: "workers/api/guild-tasks.ts" },
    },
    {
      file: "bindings/task-messages.ts",
      what: "`wakeQueue` (`sendTaskMessage` wakes it too, for a person's message and a webhook delivery's): the organisation's queue told.",
      reached: { kind: "import", from: "workers/api/tasks.ts" },
    },
    {
      file: "bindings/objects.ts",
      what: "`taskQueue(env, organisationId)`: the stub of the organisation's queue.",
      reached: { kind: "import", from: "bindings/task-messages.ts" },
    },
    {
      file: "durable-objects/task/queue-object.ts",
      what: "`wake`, handed to its plan (loaded on the object's start); its `starter` is how a task is asked to start.",
      reached: { kind: "rpc", from: "bindings/task-messages.ts", method: "wake", stub: "taskQueue" },
    },
    {
      file: "durable-objects/task/queue.ts",
      what: "The plan: the due tasks and the active ones read, each start claimed (`claimForRun`, status running), then `starter.start(taskId)`.",
      reached: { kind: "import" },
    },
    {
      file: "core/tasks/outcome.ts",
      what: "`planStarts`: oldest due first, as many as `runs.maxConcurrent` leaves free, none with an active run.",
      reached: { kind: "import" },
    },
    {
      file: "durable-objects/task/task-object.ts",
      what: "`start` on the task object's RPC surface, handed to its control (loaded on the object's start).",
      reached: { kind: "rpc", from: "durable-objects/task/queue-object.ts", method: "start", stub: "taskObject" },
    },
    {
      file: "durable-objects/task/task-control.ts",
      what: "`start`: the task and the agent read, the task prompt, the run opened, a fresh credential, the driver started in the background.",
      reached: { kind: "import" },
    },
    {
      file: "durable-objects/task/task-rooms.ts",
      what: "The task's own RunContext, built once by the same builder as the agent's (serving the task): its lock, sessions, hub and stream, and a box named `task:<taskId>` keeping /data in the task's volume.",
      reached: { kind: "import" },
    },
    {
      file: "durable-objects/agent/state/open-context.ts",
      what: "`openRunContext`: lock, deadlines, connection, hub, the session cache given the hub (each row also to the task's stream), the box.",
      reached: { kind: "import", from: "durable-objects/task/task-rooms.ts" },
    },
    {
      file: "core/db/task-run.ts",
      what: "`readTaskForRun` (task, repository, installation, settings, the agent's git identity) and `taskRunClaim`: one active run per task.",
      reached: { kind: "import", from: "durable-objects/task/task-control.ts" },
    },
    {
      file: "durable-objects/agent/run/opening.ts",
      what: "`writeOpening`: the run (kind task), its snapshot and system row and the task prompt's row in one statement, with the task run's claim.",
      reached: { kind: "import", from: "durable-objects/task/task-control.ts" },
    },
    {
      file: "core/tasks/credential.ts",
      what: "`newCredential`: 32 random bytes the box's git will present to the gateway; the gateway's address (`GATEWAY_HOST`, `gatewayRemote`).",
      reached: { kind: "import", from: "durable-objects/task/task-control.ts" },
    },
    {
      file: "durable-objects/task/run-state.ts",
      what: "`begin`: the run in flight and its credential, kept in the object's storage until the run ends.",
      reached: { kind: "import", from: "durable-objects/task/task-rooms.ts" },
    },
    {
      file: "durable-objects/task/run-driver.ts",
      what: "`drive`: provisioning, preparing, then turns; after each turn the push and, once ahead, the draft pull request.",
      reached: { kind: "import", from: "durable-objects/task/task-control.ts" },
    },
    {
      file: "durable-objects/agent/generation/inputs.ts",
      what: "`openSecrets` and `ensureRequestOf`: what the box starts with (the agent's secrets, the coding image).",
      reached: { kind: "import" },
    },
    {
      file: "durable-objects/sandbox/manager.ts",
      what: "`generationStarting`: the box ensured, its workspace checked, its access handed back.",
      reached: { kind: "import", from: "durable-objects/agent/state/open-context.ts" },
    },
    {
      file: "durable-objects/sandbox/lifecycle.ts",
      what: "`ensure`: the task's container reused, taken from the warm pool and claimed, or started, with a fresh guest token; the task's volume restored into /data.",
      reached: { kind: "import" },
    },
    {
      file: "durable-objects/sandbox/sandbox-container.ts",
      what: "`StandardSandbox.boot`: the container started and its guest's port awaited; later it proxies the guest's requests and intercepts the gateway's host.",
      reached: { kind: "rpc", from: "durable-objects/sandbox/lifecycle.ts", method: "boot", stub: "boxContainer" },
    },
    {
      file: "durable-objects/sandbox/access.ts",
      what: "`sandboxAccess`: commands and files over the guest the ensure returned.",
      reached: { kind: "import", from: "durable-objects/sandbox/manager.ts" },
    },
    {
      file: "durable-objects/task/box-commands.ts",
      what: "`writeCredential` (the box's tokens file: the credential for the gateway's URL, nothing else), then `prepare`: `guilds-code task-prepare`.",
      reached: { kind: "import", from: "durable-objects/task/run-driver.ts" },
    },
    {
      file: "core/sandbox/guest-client.ts",
      what: "`exec`: the command posted to the guest through the Container's `fetch`, its output read as it streams.",
      reached: { kind: "import", from: "durable-objects/sandbox/lifecycle.ts" },
    },
    {
      file: "containers/guest/server.ts",
      what: "In the box: `POST /exec`, the guest's token checked.",
      reached: { kind: "http", request: "POST /exec", sent: { marker: '"/exec"' }, served: { marker: '"/exec"' } },
    },
    { file: "containers/guest/exec.ts", what: "`startExec`: `bash -lc <command>`, its output framed as NDJSON.", reached: { kind: "import" } },
    {
      file: "containers/code/main.ts",
      what: "`guilds-code`: the subcommand's flags checked, its answer one JSON line.",
      reached: { kind: "exec", command: "task-prepare", origin: "durable-objects/task/box-commands.ts" },
    },
    {
      file: "containers/code/task-prepare.ts",
      what: "The workspace sanitized (config rewritten, hooks removed), fetched or cloned from the gateway's remote, put on the task branch.",
      reached: { kind: "import" },
    },
    { file: "containers/code/task-git.ts", what: "git with fixed arguments and environment: `ls-remote`, `fetch`, `push`.", reached: { kind: "import" } },
    {
      file: "containers/code/credential.ts",
      what: "git's credential helper (`guilds-code credential get`): the run's credential from the tokens file, as git's password for the gateway.",
      reached: { kind: "import", from: "containers/code/main.ts" },
    },
    {
      file: "durable-objects/sandbox/git-gateway.ts",
      what: "The Container class's outbound handler for the gateway's host: only the task's own box (`ctx.containerId`) gets through.",
      reached: boxGit,
      or: gatewayRoute,
    },
    {
      file: "bindings/task-gateway.ts",
      what: "`serveTaskGit`, the one door both ways in share: the task read from the path; `authorize` is the task object's `authorizeGit`, `refused` its `gitRefused`, `ancestry` the forge's compare.",
      reached: { kind: "import", from: "durable-objects/sandbox/git-gateway.ts" },
    },
    {
      file: "core/git-gateway/handler.ts",
      what: "`gatewayHandler`: smart HTTP only; the credential vouched for by the task's object; the task's repository only; a fetch forwarded to the forge with the installation token.",
      reached: { kind: "import", from: "bindings/task-gateway.ts" },
    },
    {
      file: "durable-objects/task/task-object.ts",
      what: "`authorizeGit`, handed to its control.",
      reached: { kind: "rpc", from: "bindings/task-gateway.ts", method: "authorizeGit", stub: "taskObject" },
    },
    { file: "durable-objects/task/task-control.ts", what: "`authorizeGit`: a run driven here, and its credential.", reached: { kind: "import" } },
    {
      file: "durable-objects/task/run-state.ts",
      what: "`authorizes`: the presented credential is the run's, compared in constant time.",
      reached: { kind: "import", from: "durable-objects/task/task-rooms.ts" },
    },
    {
      file: "durable-objects/task/repository-tokens.ts",
      what: "`RepositoryTokens.token`: an installation token for the task's repository alone, kept until near its expiry; the gateway's grant carries it.",
      reached: { kind: "import", from: "durable-objects/task/task-control.ts" },
    },
    { file: "bindings/github.ts", what: "`githubApp(env)`: the platform's GitHub App from its settings.", reached: { kind: "import" } },
    {
      file: "core/github/client.ts",
      what: "`mintRepositoryToken`: the App's JWT exchanged for a token limited to the repository (contents and pull requests).",
      reached: { kind: "import" },
    },
    {
      file: "durable-objects/task/run-driver.ts",
      what: "Prepared: `markConnected`; then a turn under the task's own lock, with the agent's generation.",
      reached: { kind: "import", from: "durable-objects/task/task-control.ts" },
    },
    {
      file: "durable-objects/agent/state/generation-lock.ts",
      what: "`claim`: the task's lock (the agent's direct chats and its other tasks hold their own).",
      reached: { kind: "import", from: "durable-objects/agent/state/open-context.ts" },
    },
    {
      file: "durable-objects/agent/run/turn.ts",
      what: "`runTurn`, the one turn of every run: the driver's `prepare` adds the credential to the redactor, starts commands in the workspace and gives the task tools; the outcome says what comes next (a hand-off ends the run `handed_off` and the next run starts from its notes).",
      reached: { kind: "import", from: "durable-objects/task/run-driver.ts" },
    },
    {
      file: "durable-objects/agent/generation/inputs.ts",
      what: "`generationInputs`: the coding tools on the box, the task's tools.",
      reached: { kind: "import", from: "durable-objects/agent/run/turn.ts" },
    },
    {
      file: "durable-objects/agent/generation/generation.ts",
      what: "`runGeneration` (the platform's harness): the model called, each reply and tool result committed, until the agent replies without tool calls.",
      reached: { kind: "import", from: "durable-objects/agent/run/turn.ts" },
    },
    {
      file: "durable-objects/agent/generation/model-call.ts",
      what: "`callModel`: the provider's streamed answer.",
      reached: { kind: "import", from: "durable-objects/agent/generation/generation.ts" },
    },
    {
      file: "core/tools/registry.ts",
      what: "`runTool`: each tool call's arguments validated and its tool run.",
      reached: { kind: "import", from: "durable-objects/agent/generation/generation.ts" },
    },
    {
      file: "core/tools/shell.ts",
      what: "The agent's commands in the box (through the same access and guest as task-prepare): its edits, tests and commits on the task branch.",
      reached: { kind: "import" },
    },
    {
      file: "durable-objects/agent/state/run-session.ts",
      what: "`commit`: each row at the run's next seq, then published.",
      reached: { kind: "import", from: "durable-objects/agent/generation/generation.ts" },
    },
    { file: "core/db/transcript.ts", what: "The INSERT into `messages`.", reached: { kind: "import" } },
    {
      file: "durable-objects/common/sse-hub.ts",
      what: "`publishRow` (the session cache's hub): the row to the run's subscribers.",
      reached: { kind: "import", from: "durable-objects/agent/state/open-context.ts" },
    },
    {
      file: "durable-objects/task/stream.ts",
      what: "`row`: the same row on the task's own stream.",
      reached: { kind: "import", from: "durable-objects/task/task-rooms.ts" },
    },
    {
      file: "durable-objects/task/box-commands.ts",
      what: "After the turn, `push`: `guilds-code task-push`.",
      reached: { kind: "import", from: "durable-objects/task/run-driver.ts" },
    },
    {
      file: "containers/code/main.ts",
      what: "`guilds-code task-push`, started by the guest as before.",
      reached: { kind: "exec", from: "containers/guest/exec.ts", command: "task-push", origin: "durable-objects/task/box-commands.ts" },
    },
    {
      file: "containers/code/task-push.ts",
      what: "The task branch pushed to the gateway; the answer says how far it is ahead of the base.",
      reached: { kind: "import" },
    },
    { file: "containers/code/task-git.ts", what: "`push`.", reached: { kind: "import" } },
    { file: "durable-objects/sandbox/git-gateway.ts", what: "The push, through the same door.", reached: boxGit, or: gatewayRoute },
    {
      file: "core/git-gateway/handler.ts",
      what: "`receivePack`: the command list read (pkt-line), refused refs answered in git's report form, the pack streamed on to the forge.",
      reached: { kind: "import", from: "bindings/task-gateway.ts" },
    },
    {
      file: "core/git-gateway/check-push.ts",
      what: "`refsRefusals`: only the task and WIP branches, no base, no deletes but WIP; `needsAncestry`: a new branch needs no fast-forward proof.",
      reached: { kind: "import", from: "core/git-gateway/handler.ts" },
    },
    {
      file: "core/git-gateway/push-stream.ts",
      what: "`forwardedBody`: the push's bytes on to the forge as read, cut off if a check refuses midway.",
      reached: { kind: "import", from: "core/git-gateway/handler.ts" },
    },
    {
      file: "durable-objects/task/run-driver.ts",
      what: "Pushed and ahead with no pull request yet: `openPullRequest`.",
      reached: { kind: "import", from: "durable-objects/task/task-control.ts" },
    },
    { file: "durable-objects/task/repository-tokens.ts", what: "`forge`: the forge plugin with the repository's token.", reached: { kind: "import" } },
    { file: "bindings/github.ts", what: "`forgePlugin(env, token)`: GitHub's REST base from the settings.", reached: { kind: "import" } },
    {
      file: "core/github/forge-plugin.ts",
      what: "`openDraftPR`: REST `POST /repos/<owner>/<repo>/pulls` with `draft: true`, head the task branch, base the task's base.",
      reached: { kind: "import" },
    },
    {
      file: "core/db/task-run.ts",
      what: "`setPullRequest`: the pull request's number and URL on the task.",
      reached: { kind: "import", from: "durable-objects/task/run-driver.ts" },
    },
    {
      file: "durable-objects/task/stream.ts",
      what: "`pullRequest`: the event on the task's stream, for the console.",
      reached: { kind: "import", from: "durable-objects/task/task-rooms.ts" },
    },
  ],
};
