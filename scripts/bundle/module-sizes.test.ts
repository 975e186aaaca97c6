import { describe, expect, it } from "vitest";
import { moduleSizes } from "./module-sizes";

describe("bundle size by module (bundle and startup budget)", () => {
  it("HARDEN: groups npm packages by name, zod's locales and the rank tables apart, sources by folder", () => {
    const inputs = {
      "node_modules/zod/v4/core/schemas.js": { bytesInOutput: 300 },
      "node_modules/zod/v4/locales/fr.js": { bytesInOutput: 50 },
      "node_modules/zod/v4/locales/de.js": { bytesInOutput: 50 },
      "node_modules/js-tiktoken/dist/ranks/o200k_base.js": { bytesInOutput: 900 },
      "node_modules/@neondatabase/serverless/index.mjs": { bytesInOutput: 200 },
      "durable-objects/agent/run/lifecycle.ts": { bytesInOutput: 20 },
      "durable-objects/agent/generation/generation.ts": { bytesInOutput: 10 },
    };
    const meta = { outputs: { "out/index.js": { inputs }, "out/index.js.map": { inputs: { "node_modules/zod/v4/core/schemas.js": { bytesInOutput: 999 } } } } };
    expect(moduleSizes(meta)).toEqual([
      ["js-tiktoken/ranks", 900],
      ["zod", 300],
      ["@neondatabase/serverless", 200],
      ["zod/locales", 100],
      ["durable-objects/agent", 30],
    ]);
  });
});
