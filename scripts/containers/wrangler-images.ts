/**
 * The container images the Worker declares: the top-level `[[containers]]` tables of
 * wrangler.toml (the local stack's; deployed environments name the same Dockerfiles).
 * Read with a small scanner rather than a TOML library: only `class_name`, `image` and
 * `image_build_context` of those tables matter here.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";

export interface DeclaredImage {
  className: string;
  /** Absolute path of the Dockerfile. */
  dockerfile: string;
  /** Absolute path of the build context (wrangler's default: the Dockerfile's folder). */
  context: string;
}

/**
 * @example declaredImages("/repo/wrangler.toml")
 *   // [{ className: "LiteSandbox", dockerfile: "/repo/containers/lite/Dockerfile", context: "/repo/containers" }, …]
 */
export function declaredImages(wranglerToml: string): DeclaredImage[] {
  const root = dirname(wranglerToml);
  const text = readFileSync(wranglerToml, "utf8");
  const images: DeclaredImage[] = [];
  for (const table of topLevelContainerTables(text)) {
    const className = stringValue(table, "class_name");
    const image = stringValue(table, "image");
    // A registry reference (not a Dockerfile path) is pulled, not built.
    if (!className || !image || !/Dockerfile[^/]*$/.test(image)) continue;
    const dockerfile = resolve(root, image);
    const context = stringValue(table, "image_build_context");
    images.push({ className, dockerfile, context: context ? resolve(root, context) : dirname(dockerfile) });
  }
  return images;
}

function topLevelContainerTables(text: string): string[] {
  const tables: string[] = [];
  const lines = text.split("\n");
  let current: string[] | null = null;
  for (const line of lines) {
    const header = /^\s*\[\[?([^\]]+)\]\]?\s*(#.*)?$/.exec(line);
    if (header) {
      if (current) tables.push(current.join("\n"));
      current = header[1]!.trim() === "containers" && line.trim().startsWith("[[") ? [] : null;
      continue;
    }
    current?.push(line);
  }
  if (current) tables.push(current.join("\n"));
  return tables;
}

function stringValue(table: string, key: string): string | undefined {
  return new RegExp(`^\\s*${key}\\s*=\\s*"([^"]*)"`, "m").exec(table)?.[1];
}
