/**
 * CLI for the mock model, for the local stack and manual poking:
 *   npx tsx scripts/mock-model/main.ts [--port N]
 * Prints one `MOCK_MODEL <url>` line (parsed by whoever spawned it) and serves until signalled.
 */
import { parseArgs } from "node:util";
import { startMockModel } from "./server";

const { values } = parseArgs({ options: { port: { type: "string" } } });
const port = values.port === undefined ? 0 : Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`invalid --port: ${values.port}`);
  process.exit(2);
}

const mock = await startMockModel({ port });
console.log(`MOCK_MODEL ${mock.url}`);

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await mock.close();
  process.exit(0);
}
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());
