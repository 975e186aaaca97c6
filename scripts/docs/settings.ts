/**
 * The Worker's settings table (docs/configuration.md), from where the settings are declared
 * and set: the `Settings` interface of bindings/env.ts (one doc per setting, with `@default`
 * and `@secret`), the `[vars]` of wrangler.toml and of each `[env.<name>.vars]` (a comment
 * above a var describes it), .dev.vars.example, and the local stack's sources
 * (scripts/stack/stack.ts and what it takes from scripts/forge/local-app.ts). Pure: the
 * sources' text is passed in.
 */
import { cell } from "./markdown";
import { environments, type TomlTable, tomlTables, unquote } from "./toml";

/** One setting as bindings/env.ts declares it. */
export interface DeclaredSetting {
  name: string;
  description: string;
  /** The `@default` tag: the value in effect when unset, with an optional note after it. */
  default?: string;
  /** Tagged `@secret`: set with `wrangler secret put`, never in wrangler.toml. */
  secret: boolean;
}

export interface SettingsSources {
  /** bindings/env.ts */
  envTs: string;
  wranglerToml: string;
  devVarsExample: string;
  /** The local stack's sources that set the Worker's variables. */
  stackSources: string[];
}

/**
 * The settings of the `Settings` interface, each with the doc comment right above it.
 *
 * @example declaredSettings(readFileSync("bindings/env.ts", "utf8"))
 *   // [{ name: "MODEL_API_KEY", description: "Key of the default model provider …", secret: true }, …]
 */
export function declaredSettings(envTs: string): DeclaredSetting[] {
  const start = envTs.indexOf("export interface Settings {");
  if (start === -1) throw new Error("bindings/env.ts declares no `export interface Settings`");
  const body = envTs.slice(start, envTs.indexOf("\n}", start));
  const settings: DeclaredSetting[] = [];
  for (const match of body.matchAll(/(?:\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*)?^\s*([A-Z][A-Z0-9_]*)\??:\s*string;/gm)) {
    const lines = (match[1] ?? "").split("\n").map((l) => l.replace(/^\s*\*?\s?/, "").trim());
    const tag = (name: string) => lines.find((l) => l === `@${name}` || l.startsWith(`@${name} `));
    const fallback = tag("default")?.slice("@default".length).trim();
    settings.push({
      name: match[2]!,
      description: lines
        .filter((l) => l && !l.startsWith("@"))
        .join(" ")
        .trim(),
      ...(fallback ? { default: fallback } : {}),
      secret: tag("secret") !== undefined,
    });
  }
  return settings;
}

/**
 * The variable names a .env file sets or offers (a commented-out `# NAME=` counts).
 *
 * @example dotenvNames("A=\n# B=\n# a comment\n") // ["A", "B"]
 */
export function dotenvNames(text: string): string[] {
  return [...text.matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!);
}

/**
 * Which of `names` a TypeScript source uses in its code (its comments aside).
 *
 * @example namesInCode("// FOO is not set\nvars.BAR = x;", ["FOO", "BAR"]) // ["BAR"]
 */
export function namesInCode(source: string, names: readonly string[]): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|\s)\/\/.*$/gm, "$1");
  return names.filter((name) => new RegExp(`\\b${name}\\b`).test(code));
}

/** A default as the table shows it: its value in code style, a note after it as prose. */
function shownDefault(value: string | undefined): string {
  if (value === undefined) return "—";
  const [first = "", ...rest] = value.split(" ");
  return cell(`\`${first}\`${rest.length ? ` ${rest.join(" ")}` : ""}`);
}

/**
 * The settings table, sorted by name, and what keeps it from being complete: a setting
 * with nothing saying what it does, a name in .dev.vars.example that nothing declares.
 */
export function settingsTable(sources: SettingsSources): { markdown: string; problems: string[] } {
  const tables = tomlTables(sources.wranglerToml);
  const sections: Array<{ label: string; table: TomlTable | undefined }> = [
    { label: "[vars]", table: tables.find((t) => t.header === "vars") },
    ...environments(tables).map((env) => ({ label: `[env.${env}.vars]`, table: tables.find((t) => t.header === `env.${env}.vars`) })),
  ];
  const declared = new Map(declaredSettings(sources.envTs).map((s) => [s.name, s]));
  const varNames = sections.flatMap((s) => s.table?.entries.map((e) => e.key) ?? []);
  const names = [...new Set([...declared.keys(), ...varNames])].sort();
  const devVars = new Set(dotenvNames(sources.devVarsExample));
  const stack = new Set(sources.stackSources.flatMap((source) => namesInCode(source, names)));
  const problems = [...devVars]
    .filter((n) => !names.includes(n))
    .map((n) => `.dev.vars.example sets ${n}, which neither bindings/env.ts nor wrangler.toml declares`);

  const rows = names.map((name) => {
    const setting = declared.get(name);
    const entries = sections.flatMap(({ label, table }) => {
      const entry = table?.entries.find((e) => e.key === name);
      return entry ? [{ label, value: unquote(entry.raw), comment: entry.comment }] : [];
    });
    const fallback = setting?.default ?? (entries[0]?.label === "[vars]" ? entries[0].value : undefined);
    const description = setting?.description || entries.find((e) => e.comment)?.comment || "";
    if (!description) problems.push(`${name} has no description: give it a doc in bindings/env.ts or a comment above it in wrangler.toml`);
    const setBy = [
      ...entries.map((e) => (e.value === fallback ? `\`${e.label}\`` : `\`${e.label}\` (\`${e.value}\`)`)),
      ...(devVars.has(name) ? ["`.dev.vars.example`"] : []),
      ...(stack.has(name) ? ["`npm start`"] : []),
    ];
    const kind = setting?.secret ? "secret" : "var";
    return `| \`${name}\` | ${kind} | ${shownDefault(fallback)} | ${cell(setBy.join(", ")) || "—"} | ${cell(description)} |`;
  });
  const markdown = ["| Setting | Kind | Default | Set by | What it does |", "| --- | --- | --- | --- | --- |", ...rows].join("\n");
  return { markdown: `${markdown}\n`, problems };
}
