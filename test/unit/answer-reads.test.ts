import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * HARDEN-3: the rule that keeps outside answers within bounds. A body read whole (`.json()`,
 * `.text()`, `.arrayBuffer()`, `.blob()`) reads whatever a peer sends; the source reads fetched
 * answers through core/http/read-within.ts only. The few whole reads left are not of a
 * fetched answer, and each is listed here with why.
 */
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const FOLDERS = ["core", "durable-objects", "workers", "bindings"];
const WHOLE_READ = /\.(json|text|arrayBuffer|blob)\(\s*\)/g;

/** `path: the read` → why it is bounded already. */
const ALLOWED: Record<string, string> = {
  "durable-objects/agent/generation/hydrate.ts: object.arrayBuffer()": "an R2 object of the platform's own bucket, its size checked before it is read",
  "workers/views/sandbox-view-proxy.ts: raw.arrayBuffer()": "a WebSocket message from the browser, bounded by the runtime's message size",
  "workers/http/body.ts: req.json()": "a doc comment's example; request bodies are read by readWithin",
  "workers/api/attachments.ts: upload.arrayBuffer()": "a part of a multipart request body the API read within its limit",
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sources(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** Every whole read in the source, as `path: receiver.read()`. */
function wholeReads(): string[] {
  const found: string[] = [];
  for (const folder of FOLDERS) {
    for (const file of sources(join(ROOT, folder))) {
      const text = readFileSync(file, "utf8");
      for (const match of text.matchAll(WHOLE_READ)) {
        const before = text.slice(Math.max(0, match.index - 80), match.index);
        const receiver = /([\w$.]+|\))\s*$/.exec(before)?.[1] ?? "";
        found.push(`${relative(ROOT, file)}: ${receiver.split(".").at(-1)}${match[0].replace(/\s+/g, "")}`);
      }
    }
  }
  return found;
}

describe("HARDEN-3: answers are read through the capped reader", () => {
  it("HARDEN-3: no source file reads a fetched answer whole (.json(), .text(), .arrayBuffer(), .blob()) outside core/http/read-within.ts", () => {
    const unexplained = wholeReads().filter((read) => !(read in ALLOWED));
    expect(unexplained, "read it with readJsonWithin / readTextWithin (core/http/read-within.ts), or give an SDK cappedFetch").toEqual([]);
  });

  it("HARDEN-3: the allowlist names only reads that still exist", () => {
    const reads = new Set(wholeReads());
    expect(Object.keys(ALLOWED).filter((read) => !reads.has(read))).toEqual([]);
  });
});
