/**
 * `npm run bundle`: bundles the Worker as `wrangler deploy` would, without uploading
 * (`--dry-run`), and prints the size of what would be deployed, raw and gzipped.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { ROOT } from "./stack/wrangler";

const outdir = mkdtempSync(join(tmpdir(), "guilds-bundle-"));
try {
  execFileSync(process.execPath, [join(ROOT, "node_modules/wrangler/bin/wrangler.js"), "deploy", "--dry-run", "--outdir", outdir], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
  });
  let raw = 0;
  let gzipped = 0;
  for (const name of readdirSync(outdir, { recursive: true }) as string[]) {
    const path = join(outdir, name);
    if (!statSync(path).isFile() || name.endsWith(".map")) continue;
    const bytes = readFileSync(path);
    raw += bytes.byteLength;
    gzipped += gzipSync(bytes, { level: 9 }).byteLength;
  }
  const kib = (n: number) => (n / 1024).toFixed(1);
  console.log(`Worker bundle: ${kib(raw)} KiB raw, ${kib(gzipped)} KiB gzipped (Workers limit: 3072 KiB gzipped on Free, 10240 KiB on Paid)`);
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
