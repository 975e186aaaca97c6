import { describe, expect, it } from "vitest";
import { unpinnedActions } from "./pins";

describe("unpinnedActions", () => {
  it("accepts actions pinned to a full commit SHA, local actions and docker images", () => {
    const workflow = [
      "steps:",
      "  - uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1",
      "  - uses: ./.github/actions/local",
      "  - uses: docker://alpine:3",
      "jobs:",
      "  ci:",
      "    uses: acme/workflows/.github/workflows/ci.yml@0123456789abcdef0123456789abcdef01234567",
    ].join("\n");
    expect(unpinnedActions(workflow)).toEqual([]);
  });

  it("names tags, branches and short SHAs with their line", () => {
    const workflow = ["steps:", "  - uses: actions/checkout@v5", "  - uses: 'cloudflare/wrangler-action@main'", "  - uses: a/b@3d3c42e"].join("\n");
    expect(unpinnedActions(workflow)).toEqual([
      { line: 2, uses: "actions/checkout@v5" },
      { line: 3, uses: "cloudflare/wrangler-action@main" },
      { line: 4, uses: "a/b@3d3c42e" },
    ]);
  });
});
