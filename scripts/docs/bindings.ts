/**
 * The Worker's bindings table (docs/configuration.md), from wrangler.toml: each Durable
 * Object namespace, R2 bucket, rate limit and the console's assets, with what it is bound to
 * at the top level (the local stack and the tests) and in each `[env.<name>]`. Pure.
 */
import { cell } from "./markdown";
import { environments, type TomlTable, tableValue, tomlTables } from "./toml";

interface Kind {
  /** The array of tables declaring it, without the `env.<name>.` prefix. */
  table: string;
  label: string;
  nameKey: string;
  value: (table: TomlTable) => string;
}

const KINDS: Kind[] = [
  { table: "durable_objects.bindings", label: "Durable Object namespace", nameKey: "name", value: (t) => `\`${tableValue(t, "class_name") ?? "?"}\`` },
  { table: "r2_buckets", label: "R2 bucket", nameKey: "binding", value: (t) => `\`${tableValue(t, "bucket_name") ?? "?"}\`` },
  { table: "ratelimits", label: "Rate limit", nameKey: "name", value: rateLimit },
];

/** `simple = { limit = 5000, period = 10 }` and the namespace, in words. */
function rateLimit(table: TomlTable): string {
  const simple = tableValue(table, "simple") ?? "";
  const limit = /limit\s*=\s*(\d+)/.exec(simple)?.[1];
  const period = /period\s*=\s*(\d+)/.exec(simple)?.[1];
  return `${limit ?? "?"} per ${period ?? "?"} s (namespace ${tableValue(table, "namespace_id") ?? "?"})`;
}

/**
 * @example bindingsTable('[[r2_buckets]]\nbinding = "ATTACHMENTS"\nbucket_name = "guilds-attachments"\n')
 *   // "| Binding | Kind | Top level (local) |\n| --- | --- | --- |\n| `ATTACHMENTS` | R2 bucket | `guilds-attachments` |\n"
 */
export function bindingsTable(wranglerToml: string): string {
  const tables = tomlTables(wranglerToml);
  const envs = environments(tables);
  const scopes = [{ prefix: "", label: "Top level (local)" }, ...envs.map((env) => ({ prefix: `env.${env}.`, label: `\`${env}\`` }))];
  const rows: string[] = [];
  const assets = tables.find((t) => t.header === "assets" && !t.array);
  if (assets) {
    const binding = tableValue(assets, "binding") ?? "?";
    // [assets] is inherited by every environment.
    const where = `\`${tableValue(assets, "directory") ?? "?"}\``;
    rows.push(`| \`${binding}\` | Static assets (the console) | ${scopes.map(() => where).join(" | ")} |`);
  }
  for (const kind of KINDS) {
    const names: string[] = [];
    for (const t of tables) {
      const scope = scopes.find((s) => t.array && t.header === `${s.prefix}${kind.table}`);
      const name = scope && tableValue(t, kind.nameKey);
      if (name && !names.includes(name)) names.push(name);
    }
    for (const name of names) {
      const cells = scopes.map((scope) => {
        const table = tables.find((t) => t.array && t.header === `${scope.prefix}${kind.table}` && tableValue(t, kind.nameKey) === name);
        return table ? kind.value(table) : "—";
      });
      rows.push(`| \`${name}\` | ${kind.label} | ${cells.map(cell).join(" | ")} |`);
    }
  }
  const header = `| Binding | Kind | ${scopes.map((s) => s.label).join(" | ")} |`;
  const rule = `| --- | --- | ${scopes.map(() => "---").join(" | ")} |`;
  return `${[header, rule, ...rows].join("\n")}\n`;
}
