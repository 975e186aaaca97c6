import { describe, expect, it } from "vitest";
import { deployedOrigin, routeOrigin } from "./target";

const line = (entry: object) => JSON.stringify({ version: 1, ...entry });

describe("ENVIRONMENTS: where a deployment answers", () => {
  it("ENVIRONMENTS: the workers.dev URL wrangler reports for a deploy", () => {
    const output = [
      line({ type: "wrangler-session", wrangler_version: "4" }),
      line({ type: "deploy", targets: ["https://guilds-platform-staging.acme.workers.dev"] }),
    ].join("\n");
    expect(deployedOrigin(output)).toBe("https://guilds-platform-staging.acme.workers.dev");
  });

  it("ENVIRONMENTS: a custom domain or route goes before workers.dev", () => {
    const output = line({ type: "deploy", targets: ["https://g.acme.workers.dev", "agents.example.com (custom domain)"] });
    expect(deployedOrigin(output)).toBe("https://agents.example.com");
    expect(deployedOrigin(line({ type: "deploy", targets: ["example.com/*", "https://g.acme.workers.dev"] }))).toBe("https://example.com");
  });

  it("ENVIRONMENTS: no deploy entry, no targets or only wildcard routes give no origin", () => {
    expect(deployedOrigin("")).toBeUndefined();
    expect(deployedOrigin(`not json\n${line({ type: "deploy" })}`)).toBeUndefined();
    expect(deployedOrigin(line({ type: "deploy", targets: ["*.example.com/*"] }))).toBeUndefined();
  });

  it("ENVIRONMENTS: the first concrete route of the environment in wrangler.toml", () => {
    expect(routeOrigin([{ pattern: "agents.example.com", custom_domain: true }])).toBe("https://agents.example.com");
    expect(routeOrigin(["*.example.com/*", "api.example.com/*"])).toBe("https://api.example.com");
    expect(routeOrigin(undefined)).toBeUndefined();
  });
});
