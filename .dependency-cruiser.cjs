/**
 * The project's dependency rules, checked by `npm run deps` (part of `npm test`); see
 * docs/decisions/0016-rooms.md. Paths are relative to the repository root. Cycles between
 * folders are checked by scripts/deps/folder-cycles.ts, which reads this cruise's result.
 */

/** Test files: exempt from the layer rules (a test may reach into any room it tests), not from cycles. */
const TESTS = "\\.test\\.ts$";

/** The agent object's rooms. */
const AGENT_OBJECT_FILES = "^durable-objects/agent/[^/]+$";
const TRIGGERS = "^durable-objects/agent/triggers/";
const RUN = "^durable-objects/agent/run/";
const GENERATION = "^durable-objects/agent/generation/";
const STATE = "^durable-objects/agent/state/";

/** A layer rule: files under `from` (tests aside) import nothing under `to`. */
function layer(name, comment, from, to, toNot) {
  return { name, comment, severity: "error", from: { path: from, pathNot: TESTS }, to: toNot ? { path: to, pathNot: toNot } : { path: to } };
}

/** An allow-list rule: files under `from` (tests aside) import nothing outside `allowed` (npm packages are not cruised). */
function only(name, comment, from, allowed) {
  return { name, comment, severity: "error", from: { path: from, pathNot: TESTS }, to: { pathNot: allowed } };
}

module.exports = {
  forbidden: [
    {
      name: "no-file-cycle",
      comment:
        "Files that import each other, directly or round a loop, can't be read, tested or moved one at a time, " +
        "and their module initialisation order decides what is undefined at load time. Tests included.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "resolvable",
      comment:
        "An import the cruise can't resolve is an edge no other rule sees: every rule would pass over it. " +
        "The runtime's own modules (cloudflare:*) are the only ones it has no file for.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true, pathNot: "^cloudflare:" },
    },
    layer(
      "core-runs-anywhere",
      "core/ runs in Node (unit tests, scripts, the sandbox's code) as well as in workerd. It does I/O (core/db queries " +
        "Postgres over the connection it is handed; core/github and core/mcp call out with fetch), but only with what both " +
        "runtimes have: no Workers binding, no runtime module (cloudflare:*). It knows none of the folders built on it: " +
        "bindings, the API, the objects, the console, the sandbox's code, the scripts, the benchmarks (and test/, which " +
        "test-support-in-test bars for every folder).",
      "^core/",
      "^(bindings|workers|durable-objects|web|containers|scripts|bench)/|^cloudflare:",
    ),
    only(
      "shared-is-leaf",
      "core/shared/ is what the console reads exactly as the server does (a post's @tags, UTC date ranges, the variant " +
        "limit). The console's browser bundle takes it, so it imports nothing outside itself, not even the rest of core/.",
      "^core/shared/",
      "^core/shared/",
    ),
    layer(
      "bindings-below-objects",
      "bindings/ wraps Workers bindings for the API and the objects alike; importing either would make them one knot. " +
        "It ships in the Worker, which takes no console, sandbox, script or benchmark code.",
      "^bindings/",
      "^(workers|durable-objects|web|containers|scripts|bench)/",
    ),
    layer(
      "objects-below-api",
      "The API reaches the objects through their bindings; the objects never import the API. They ship in the Worker, " +
        "which takes no console, sandbox, script or benchmark code.",
      "^durable-objects/",
      "^(workers|web|containers|scripts|bench)/",
    ),
    layer(
      "worker-ships-alone",
      "The Worker serves the console as built assets and reaches the boxes over HTTP: the API imports no console source, " +
        "no sandbox code, no scripts and no benchmarks.",
      "^workers/",
      "^(web|containers|scripts|bench)/",
    ),
    only(
      "console-through-api",
      "The console is a browser program that reaches the server only through the API, whose types are generated into " +
        "web/src/lib/api-schema.d.ts. Besides its own code and npm packages it imports only core/shared/.",
      "^web/src/",
      "^(web/src|core/shared)/",
    ),
    layer(
      "sandbox-code-stands-alone",
      "containers/ is bundled into the sandbox images and runs in the box's Node. It may share core/ (a repository's " +
        "types, the git token's key) but none of the Worker's own code, the console, the scripts, the benchmarks or the " +
        "runtime's cloudflare:* modules.",
      "^containers/",
      "^(bindings|workers|durable-objects|web|scripts|bench)/|^cloudflare:",
    ),
    layer(
      "test-support-in-test",
      "Test support lives under test/ and serves tests alone: no other file outside test/ imports it, so no shipped " +
        "code, script or benchmark carries a test's helpers. Any *.test.ts file may.",
      "^(?!test/)",
      "^test/",
    ),
    layer(
      "common-is-shared",
      "durable-objects/common/ (SSE hub, idle connection, deadline multiplexer) serves every object; it knows none of them.",
      "^durable-objects/common/",
      "^durable-objects/",
      "^durable-objects/common/",
    ),
    layer(
      "sandbox-below-agent",
      "The sandbox room (the box, its homes, the Container classes) is used by the agent's rooms; it may not reach back into the agent.",
      "^durable-objects/sandbox/",
      "^durable-objects/agent/",
    ),
    layer(
      "state-is-bottom",
      "The agent's state (the context, the lock, sessions) sits below everything else of the agent: run, generation, " +
        "triggers and the object use it; it uses only the sandbox (the context names the box), common/, core/ and bindings/.",
      STATE,
      `${RUN}|${GENERATION}|${TRIGGERS}|${AGENT_OBJECT_FILES}`,
    ),
    layer(
      "generation-below-run",
      "A generation (model call, tools) is driven by a run; it may not reach the run, the triggers or the object.",
      GENERATION,
      `${RUN}|${TRIGGERS}|${AGENT_OBJECT_FILES}`,
    ),
    layer("run-below-triggers", "A run is started by triggers and the object; it may not reach either.", RUN, `${TRIGGERS}|${AGENT_OBJECT_FILES}`),
    layer(
      "triggers-below-object",
      "Triggers (schedules, group messages, deliveries) are wired up by the object; they may not reach the object's files.",
      TRIGGERS,
      AGENT_OBJECT_FILES,
    ),
    layer(
      "guild-not-agent",
      "The guild object and the agent object talk through their stubs (bindings/), not through each other's code.",
      "^durable-objects/guild/",
      "^durable-objects/agent/",
    ),
    layer(
      "task-above-agent",
      "A task run drives the agent's run and generation rooms with a context of its own (docs/decisions/0017-tasks.md); " +
        "no other object reaches the task's rooms.",
      "^durable-objects/(agent|guild|sandbox|common)/",
      "^durable-objects/task/",
    ),
    layer(
      "workers-through-entries",
      "The API reaches an object through its binding; the only object code it imports is the classes' entry files, " +
        "which workers/index.ts exports for the runtime and whose types the stubs carry.",
      "^workers/",
      "^durable-objects/",
      "^durable-objects/(agent/agent-object|guild/guild-object|sandbox/sandbox-container|sandbox/warm-pool|task/task-object|task/queue-object|forge/inbox-object)\\.ts$",
    ),
  ],
  options: {
    // TypeScript 7 has no compiler API for dependency-cruiser; swc parses instead (scripts/deps/swc-tsx.ts).
    // It reads every import declaration, so type-only imports count as edges, as they should: a type is a dependency.
    parser: "swc",
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.base.json" },
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|dist)/" },
    enhancedResolveOptions: {
      extensions: [".ts", ".tsx", ".d.ts", ".js", ".mjs", ".cjs", ".json"],
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      mainFields: ["module", "main", "types"],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
