import { defineConfig, type Plugin } from "vite";
import { headersFile } from "../core/http/security-headers.ts";
import { packageRanks } from "../core/projection/package-ranks.ts";
import { O200K_ASSET_PATH } from "../core/projection/rank-asset.ts";

/** Writes dist/_headers: static assets are served without the Worker, with these headers. */
const securityHeaders = (): Plugin => ({
  name: "security-headers",
  generateBundle() {
    this.emitFile({ type: "asset", fileName: "_headers", source: headersFile() });
  },
});

/**
 * Writes the o200k_base rank table for the Worker's token counter: served from the assets
 * and read on the first count, it stays out of the Worker bundle and its startup.
 */
const tokenizerRanks = (): Plugin => ({
  name: "tokenizer-ranks",
  async generateBundle() {
    this.emitFile({ type: "asset", fileName: O200K_ASSET_PATH.slice(1), source: JSON.stringify(await packageRanks()) });
  },
});

/**
 * The operator console: a Preact single-page app, built by `npm run build`
 * (`vite build web`, so this folder is the root) into web/dist, which the Worker
 * serves as static assets. JSX goes through Vite's built-in Oxc transform; no plugin.
 * `vite web` serves it on its own with /api proxied to a running `npm start`.
 */
export default defineConfig({
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  plugins: [securityHeaders(), tokenizerRanks()],
  build: { outDir: "dist", emptyOutDir: true, target: "es2022", sourcemap: false },
  server: { proxy: { "/api": "http://127.0.0.1:8787" } },
});
