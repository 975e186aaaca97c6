import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { O200K_ASSET_PATH } from "../../core/projection/rank-asset";
import { consoleBuildNeeded } from "./console";

describe("console build check of the local stack", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("builds when web/dist is missing or older than a source, not otherwise", () => {
    const web = mkdtempSync(join(tmpdir(), "guilds-web-"));
    dirs.push(web);
    mkdirSync(join(web, "src"));
    writeFileSync(join(web, "src", "app.tsx"), "x");
    expect(consoleBuildNeeded(web)).toBe(true);
    mkdirSync(join(web, "dist"));
    writeFileSync(join(web, "dist", "index.html"), "built");
    const t = Date.now() / 1000;
    utimesSync(join(web, "src", "app.tsx"), t - 60, t - 60);
    utimesSync(join(web, "dist", "index.html"), t, t);
    // A build from before the token counter's rank table was an asset: built again.
    expect(consoleBuildNeeded(web)).toBe(true);
    const ranks = join(web, "dist", O200K_ASSET_PATH);
    mkdirSync(dirname(ranks), { recursive: true });
    writeFileSync(ranks, "{}");
    utimesSync(join(web, "src", "app.tsx"), t - 60, t - 60);
    utimesSync(join(web, "dist", "index.html"), t, t);
    expect(consoleBuildNeeded(web)).toBe(false);
    utimesSync(join(web, "src", "app.tsx"), t + 5, t + 5);
    expect(consoleBuildNeeded(web)).toBe(true);
  });
});
