/**
 * Bytes each major part contributes to the bundle, from esbuild's metafile (wrangler writes
 * it with `--metafile`): npm packages by name (zod's locales and js-tiktoken's rank tables
 * apart, since they are what a careless import pulls in), the project's sources by top folder.
 */
export interface Metafile {
  outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
}

/** @example moduleGroup("node_modules/zod/v4/locales/fr.js") // "zod/locales" */
export function moduleGroup(path: string): string {
  const npm = path.lastIndexOf("node_modules/");
  if (npm < 0) return path.split("/").slice(0, 2).join("/");
  const parts = path.slice(npm + "node_modules/".length).split("/");
  const pkg = parts[0]!.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!;
  if (pkg === "zod" && parts.includes("locales")) return "zod/locales";
  if (pkg === "js-tiktoken" && parts.includes("ranks")) return "js-tiktoken/ranks";
  return pkg;
}

/** Bytes per group over every output module (source maps aside), largest first. */
export function moduleSizes(meta: Metafile): [group: string, bytes: number][] {
  const groups = new Map<string, number>();
  for (const [file, output] of Object.entries(meta.outputs)) {
    if (file.endsWith(".map")) continue;
    for (const [path, input] of Object.entries(output.inputs)) {
      const group = moduleGroup(path);
      groups.set(group, (groups.get(group) ?? 0) + input.bytesInOutput);
    }
  }
  return [...groups].sort((a, b) => b[1] - a[1]);
}
