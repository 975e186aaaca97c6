/**
 * The shape of a path through the code (scripts/map/message-path.ts, scripts/map/task-path.ts):
 * the files a piece of work passes through, in the order it reaches them, each with how it is
 * reached. `npm run map` writes them into docs/architecture.md; scripts/map/walk.ts checks each
 * edge against the code, so a file that no longer takes part fails `npm test`.
 */

/** How a step is reached. `from` is an earlier step's file; without it, the step just before. */
export type Edge = ImportEdge | RpcEdge | HttpEdge | ExecEdge;

/**
 * `from` imports the step's file (a static, dynamic or type-only import: a type is a dependency,
 * as `npm run deps` counts it). `through` names the files of an indirect import, in order:
 * each imports the next; each is a step of the same path or sits in the folder of `from` or of
 * the step; at most MAX_THROUGH of them. A direct import is preferred wherever it is true.
 */
export interface ImportEdge {
  kind: "import";
  from?: string;
  through?: string[];
}

/**
 * `from` calls `method` on a Durable Object's stub and the step's file, the object's entry
 * file, defines it. `stub` is how `from` gets the stub: a function of bindings/objects.ts
 * (`agentObject`, `taskObject`, ...), which `from` then imports, or for the Container classes,
 * which bindings/objects.ts does not serve, their namespace binding of the Env
 * (`SANDBOX_STANDARD`) or sandbox-container.ts's `boxContainer`.
 */
export interface RpcEdge {
  kind: "rpc";
  from?: string;
  method: string;
  stub: string;
}

/** One side of a request: the file that names it and the text it is named by. */
export interface Mention {
  /** Defaults to the edge's `from` (sent) or the step's file (served). */
  file?: string;
  marker: string;
}

/**
 * An HTTP request from `from` (or from a process it runs, such as git) that the step's file
 * serves. Checked by text: `sent.marker` occurs in the file that addresses the request and
 * `served.marker` in the file that serves it; when that is not the step's file, it imports it.
 */
export interface HttpEdge {
  kind: "http";
  from?: string;
  /** The request as a reader would say it, e.g. `POST /exec`. */
  request: string;
  sent: Mention;
  served: Mention;
}

/**
 * A process `from` starts (`spawn`) that runs the step's file as its program: the command
 * line names `command`, built in `origin`; the step's file handles `command` (quoted in both).
 */
export interface ExecEdge {
  kind: "exec";
  from?: string;
  command: string;
  origin: string;
}

export interface Step {
  /** Repository-relative path of the file. */
  file: string;
  /** What happens there, in one line. */
  what: string;
  /** How the step is reached; only the first step of a path has none. */
  reached?: Edge;
  /** One of the Worker's middleware: counted apart (a path's count is given with and without them). */
  middleware?: boolean;
  /** Another file in this place where the platform routes the work differently (a local engine, say). */
  or?: { file: string; what: string; reached: Edge };
}

export interface Path {
  /** The marker name of its section in docs/architecture.md. */
  id: string;
  /** The section's heading. */
  title: string;
  /** What the section says before its list. */
  intro: string;
  /** Where the path ends, for the count's sentence, e.g. "from the route to the subscriber's stream". */
  span: string;
  steps: Step[];
}

/** At most this many files between the two ends of an indirect import edge. */
export const MAX_THROUGH = 2;

/** A file's folder: the directory it sits in (core/ and core/db/ are two folders, as in `npm run deps`). */
export function folderOf(file: string): string {
  const at = file.lastIndexOf("/");
  return at === -1 ? "." : file.slice(0, at);
}

/** The files of a path, each once, in the order they are first reached (the alternatives included). */
export function filesOf(path: Path): string[] {
  const files: string[] = [];
  for (const step of path.steps) {
    for (const file of [step.file, step.or?.file]) if (file && !files.includes(file)) files.push(file);
  }
  return files;
}

/** The counts the section states. */
export function countsOf(path: Path): { files: number; folders: number; middleware: number; alternatives: number } {
  const files = filesOf(path);
  const middleware = new Set(path.steps.filter((s) => s.middleware).map((s) => s.file)).size;
  const alternatives = new Set(path.steps.flatMap((s) => (s.or ? [s.or.file] : []))).size;
  return { files: files.length, folders: new Set(files.map(folderOf)).size, middleware, alternatives };
}
