import { defineConfig, type Plugin } from "vite";
import { headersFile } from "../core/http/security-headers.ts";

/** Writes dist/_headers: static assets are served without the Worker, with these headers. */
const securityHeaders = (): Plugin => ({
  name: "security-headers",
  generateBundle() {
    this.emitFile({ type: "asset", fileName: "_headers", source: headersFile() });
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
  plugins: [securityHeaders()],
  build: { outDir: "dist", emptyOutDir: true, target: "es2022", sourcemap: false },
  server: { proxy: { "/api": "http://127.0.0.1:8787" } },
});
