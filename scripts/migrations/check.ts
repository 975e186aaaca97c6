/**
 * The migration safety check over a whole migrations folder: every migration additive, or the
 * declared contract step of an expand/contract pair whose expand step came earlier (and, when the
 * releases are known, shipped in an earlier release). Pure: the caller reads the files.
 * The rule: docs/decisions/0024-safe-migrations.md.
 */
import { classify, type Destructive, type Effect, type Rule } from "./rules";
import { SqlScanError, scanSql } from "./scan";

export const DECISION = "docs/decisions/0024-safe-migrations.md";

export interface MigrationSource {
  /** Journal tag, e.g. `0007_rename_agent_title`. */
  tag: string;
  sql: string;
}

export interface CheckInput {
  /** Folder shown in messages, e.g. `migrations`. */
  dir: string;
  /** Tags in the journal's order (migrations/meta/_journal.json). */
  journal: string[];
  /** The folder's `NNNN_name.sql` files. */
  files: MigrationSource[];
  /** Each release's migration tags, when the releases are known (git tags `v*`). */
  releases?: ReadonlyArray<ReadonlySet<string>>;
  /** Tags shipped before this rule whose destructive statements are accepted, each with why. */
  grandfathered?: Readonly<Record<string, string>>;
}

export interface Problem {
  file: string;
  line: number;
  statement?: string;
  message: string;
  fix: string;
}

export interface CheckResult {
  problems: Problem[];
  /** Contract steps accepted, grandfathered migrations and what went unchecked. */
  notes: string[];
}

const CONTRACT_HEADER = /^\s*contract:\s*(\S+)\s*$/i;

const FIX: Record<Rule, string> = {
  "drop-object": "stop using it in one release (expand), then drop it in a later migration that starts with `-- contract: <that release's migration tag>`",
  "drop-column": "stop reading and writing the column in one release (expand), then drop it in a later migration marked `-- contract: <expand tag>`",
  rename:
    "add the new name beside the old one and write both (expand), move readers over, then drop the old name in a later `-- contract: <expand tag>` migration",
  "set-schema": "create the object in its new place beside the old one (expand), then remove the old one in a later `-- contract: <expand tag>` migration",
  "type-change":
    "add a column of the new type and write both (expand), backfill, read the new one, then drop the old column in a later `-- contract: <expand tag>` migration",
  "not-null-without-default":
    "give the column a DEFAULT, or add it nullable (expand), make every version write it, then SET NOT NULL in a later `-- contract: <expand tag>` migration",
  "set-not-null": "ship a release that always writes the column and backfill it (expand), then SET NOT NULL in a later `-- contract: <expand tag>` migration",
  "drop-default": "ship a release that always writes the column (expand), then drop the default in a later `-- contract: <expand tag>` migration",
  "drop-identity": "ship a release that always writes the column (expand), then drop the identity in a later `-- contract: <expand tag>` migration",
  truncate: "delete the rows with a WHERE that names them, or make it the contract step (`-- contract: <expand tag>`) of a release that no longer reads them",
  "delete-all": "add a WHERE that names the rows to go, or make it the contract step (`-- contract: <expand tag>`) of a release that no longer reads them",
  "dynamic-sql": "write the statements out in the migration so they can be checked, or mark it `-- contract: <expand tag>` after an expand step",
  "drop-constraint": "add the replacement constraint under the same name in the same migration, or drop it in a later `-- contract: <expand tag>` migration",
  "drop-unique-index": "the old version's upserts (ON CONFLICT) may need it: drop it in a later `-- contract: <expand tag>` migration once no version does",
};

const fileOf = (dir: string, tag: string) => `${dir}/${tag}.sql`;

/**
 * Checks every migration of the journal.
 *
 * @example checkMigrations({ dir: "migrations", journal: ["0000_a"], files: [{ tag: "0000_a", sql: "DROP TABLE t" }] }).problems.length // 1
 */
export function checkMigrations(input: CheckInput): CheckResult {
  const problems: Problem[] = [];
  const notes: string[] = [];
  const byTag = new Map(input.files.map((f) => [f.tag, f]));
  for (const f of input.files) {
    if (!input.journal.includes(f.tag)) {
      problems.push({
        file: fileOf(input.dir, f.tag),
        line: 1,
        message: "is not in meta/_journal.json, so the deploy would never apply it",
        fix: "generate migrations with `npm run db:generate` (drizzle-kit adds the journal entry), or add its entry by hand",
      });
    }
  }

  const uniqueIndexes = new Set<string>();
  input.journal.forEach((tag, position) => {
    const file = fileOf(input.dir, tag);
    const source = byTag.get(tag);
    if (!source) {
      problems.push({ file, line: 1, message: "is named by meta/_journal.json but missing", fix: "restore the file or remove its journal entry" });
      return;
    }
    let effects: Effect[];
    let scan: ReturnType<typeof scanSql>;
    try {
      scan = scanSql(source.sql);
      effects = scan.statements.flatMap(classify);
    } catch (error) {
      if (!(error instanceof SqlScanError)) throw error;
      problems.push({ file, line: error.line, message: `cannot be read: ${error.message}`, fix: "close the comment, literal or body" });
      return;
    }

    const destructive = unsafeEffects(effects, uniqueIndexes);
    for (const e of effects) if (e.type === "create-unique-index") uniqueIndexes.add(e.name);

    const firstLine = scan.statements[0]?.line ?? Number.POSITIVE_INFINITY;
    const header = scan.comments.filter((c) => c.line < firstLine).find((c) => CONTRACT_HEADER.test(c.text));
    const expand = header ? CONTRACT_HEADER.exec(header.text)![1]! : undefined;
    if (header && expand !== undefined) {
      const problem = contractProblem(input, tag, position, expand);
      if (problem) {
        problems.push({ file, line: header.line, message: `declares itself the contract step of ${expand}, but ${problem.message}`, fix: problem.fix });
        return;
      }
      if (destructive.length > 0) notes.push(`${file}: contract step of ${expand} (${destructive.length} destructive statement(s) accepted)`);
      return;
    }
    if (destructive.length === 0) return;
    const reason = input.grandfathered?.[tag];
    if (reason !== undefined) {
      notes.push(`${file}: grandfathered (${reason})`);
      return;
    }
    for (const d of destructive) {
      problems.push({
        file,
        line: d.line,
        statement: d.statement,
        message: `${d.what}: the version still serving during the rollout may fail on it`,
        fix: FIX[d.rule],
      });
    }
  });

  if (!input.releases) {
    notes.push("release order of contract steps not checked: no release tags (v*) known; with the tags fetched, a contract step's expand step must be in one");
  }
  return { problems, notes };
}

/**
 * The destructive statements of one migration, the file's own replacements (a constraint or
 * unique index dropped and created again under its name) and new tables aside.
 */
function unsafeEffects(effects: Effect[], earlierUniqueIndexes: ReadonlySet<string>): Destructive[] {
  const createdTables = new Set(effects.flatMap((e) => (e.type === "create-table" ? [e.name] : [])));
  const addedConstraints = new Set(effects.flatMap((e) => (e.type === "add-constraint" ? [`${e.table}.${e.name}`] : [])));
  const createdUniqueIndexes = new Set(effects.flatMap((e) => (e.type === "create-unique-index" ? [e.name] : [])));
  const out: Destructive[] = [];
  for (const e of effects) {
    if (e.type === "destructive" && !(e.table !== undefined && createdTables.has(e.table))) out.push(e);
    if (e.type === "drop-constraint" && !createdTables.has(e.table) && !addedConstraints.has(`${e.table}.${e.name}`)) {
      out.push({ type: "destructive", rule: "drop-constraint", line: e.line, statement: e.statement, what: `drops constraint "${e.name}" of "${e.table}"` });
    }
    if (e.type === "drop-index") {
      for (const name of e.names.filter((n) => earlierUniqueIndexes.has(n) && !createdUniqueIndexes.has(n))) {
        out.push({ type: "destructive", rule: "drop-unique-index", line: e.line, statement: e.statement, what: `drops unique index "${name}"` });
      }
    }
  }
  return out;
}

function contractProblem(input: CheckInput, tag: string, position: number, expand: string): { message: string; fix: string } | null {
  const expandAt = input.journal.indexOf(expand);
  if (expandAt < 0)
    return { message: "no migration of meta/_journal.json has that tag", fix: "name the tag of the expand migration exactly as the journal spells it" };
  if (expandAt >= position) {
    return {
      message: `${expand} ${expandAt === position ? "is this migration" : "comes after it"}`,
      fix: "the expand step must be an earlier migration, shipped in an earlier release",
    };
  }
  // The expand step must have gone out in a release without the contract step: had both first
  // shipped together, one deploy would have run them back to back under the same old version.
  if (input.releases && !input.releases.some((r) => r.has(expand) && !r.has(tag))) {
    const together = input.releases.some((r) => r.has(expand) && r.has(tag));
    return {
      message: together
        ? `${expand} first shipped in the same release as this migration, so one deploy ran both`
        : `${expand} is in no release yet (no v* tag holds it), so both would run in the same deploy`,
      fix: "release the expand step first; add the contract migration after that release is out everywhere",
    };
  }
  return null;
}

/** The problem as the check prints it: file:line, the statement, why, and how to fix it. */
export function formatProblem(p: Problem): string {
  const lines = [`${p.file}:${p.line}: ${p.message}`];
  if (p.statement) lines.push(`  statement: ${p.statement.length > 200 ? `${p.statement.slice(0, 197)}...` : p.statement}`);
  lines.push(`  fix: ${p.fix} (see ${DECISION})`);
  return lines.join("\n");
}
