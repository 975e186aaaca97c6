/**
 * The web terminal's entry point (started by agent-cli-start). Settings are arguments:
 *   --secret-file FILE  the path segment to serve under (required; read once at start)
 *   --port N            default 7681 (0 picks a free one)
 *   --host ADDR         default 0.0.0.0 (reachable from the sandbox object's proxy)
 *   --cwd DIR           the shell's directory (default /home/agent)
 *   --assets DIR        node_modules holding @xterm (default: node_modules beside this file)
 * The shell is `bash -l` and inherits this process's environment (SBX-027).
 * Prints one `TERMINAL_LISTENING <port>` line once it accepts connections.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { createTerminalServer } from "./server";

const { values } = parseArgs({
  options: {
    "secret-file": { type: "string" },
    port: { type: "string", default: "7681" },
    host: { type: "string", default: "0.0.0.0" },
    cwd: { type: "string", default: "/home/agent" },
    assets: { type: "string", default: join(dirname(process.argv[1] ?? "."), "node_modules") },
  },
});

function fail(message: string): never {
  console.error(`terminal: ${message}`);
  process.exit(2);
}

if (!values["secret-file"]) fail("--secret-file is required");
const secret = readFileSync(values["secret-file"], "utf8").trim();
if (!/^[A-Za-z0-9_-]{16,}$/.test(secret)) fail("the secret must be at least 16 URL-safe characters");
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) fail("--port must be a port number");

const server = createTerminalServer({ secret, shell: ["bash", "-l"], cwd: values.cwd, env: process.env, assetsDir: values.assets });
server.listen(port, values.host, () => {
  const address = server.address();
  console.log(`TERMINAL_LISTENING ${typeof address === "object" && address ? address.port : port}`);
});
for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => process.exit(0));
