/**
 * Loaded before dependency-cruiser (`NODE_OPTIONS=--import=./scripts/deps/swc-tsx.ts depcruise …`).
 *
 * dependency-cruiser reads TypeScript with the `typescript` package's compiler API, which
 * TypeScript 7 no longer has; so it reads with swc (`parser: "swc"` in .dependency-cruiser.cjs).
 * swc parses JSX only when told the file is TSX, and dependency-cruiser never tells it, so the
 * console's .tsx files would fail to parse. This module hands dependency-cruiser an @swc/core
 * whose parseFileSync turns TSX on for .tsx files; everything else is swc's own.
 */
import { registerHooks } from "node:module";
import swc from "@swc/core";

type ParseOptions = Parameters<typeof swc.parseFileSync>[1];

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier === "@swc/core" && context.parentURL?.includes("/node_modules/dependency-cruiser/")) {
      return { url: import.meta.url, shortCircuit: true };
    }
    return nextResolve(specifier, context);
  },
});

export default {
  ...swc,
  parseFileSync(path: string, options: ParseOptions) {
    const tsx = path.endsWith(".tsx") && options?.syntax === "typescript";
    return swc.parseFileSync(path, tsx ? { ...options, tsx: true } : options);
  },
};
