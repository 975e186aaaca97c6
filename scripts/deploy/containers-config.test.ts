import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import { ROOT } from "../stack/wrangler";

describe("container applications of the deployed environments", () => {
  it.each(["staging", "production"])("%s names each application once after its Worker, without the environment repeated", (env) => {
    const config = unstable_readConfig({ config: join(ROOT, "wrangler.toml"), env });
    expect((config.containers ?? []).map((c: { class_name?: string; name?: string }) => [c.class_name, c.name])).toEqual([
      ["LiteSandbox", `guilds-platform-${env}-litesandbox`],
      ["StandardSandbox", `guilds-platform-${env}-standardsandbox`],
    ]);
  });
});
