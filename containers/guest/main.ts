/**
 * The guest's entry point inside a sandbox container: `node guest.mjs <settings file>`.
 * Settings come from that file (config.ts), never from the environment, which is the
 * tenant's and is only passed on to commands:
 *   GUEST_TOKEN      required, the per-sandbox bearer secret (at least 16 characters); a warm
 *                    guest's is the pool's, replaced by the claim's
 *   GUEST_WARM       "1": a warm pool box, started without secrets, that serves nothing but
 *                    /health until `POST /claim` gives it its token, env and save address (claim.ts)
 *   GUEST_PORT       port to listen on (default 8080; 0 picks a free one)
 *   GUEST_HOST       address to listen on (default 0.0.0.0, see containers/README.md)
 *   GUEST_HOME       default cwd and workspace root (default /home/agent)
 *   GUEST_MAX_FILE_BYTES  file upload/download limit (default 64 MiB)
 *   GUEST_MAX_ARCHIVE_BYTES  ceiling of a home archive, saved or restored (default 5 GiB); the
 *                    platform sends the agent's own cap with each request and may only lower it
 *   GUEST_VOLUME     the task volume archived and restored by /volume/* (default /data)
 *   GUEST_HOME_SAVE_URL  where to PUT the home archive on SIGTERM (unset: no save on exit); a
 *                    claim's replaces it
 *   GUEST_HOME_SAVE_TIMEOUT_MS  how long that save may take (default 10 minutes)
 *   and the desktop services' settings (services-config.ts)
 * Prints one `GUEST_LISTENING <port>` line once it accepts connections.
 */
import { disconnectBrowser, driverOptions } from "./browser";
import { GuestIdentity } from "./claim";
import { readGuestSettings } from "./config";
import { killAll } from "./exec";
import { pushHomeArchive } from "./home-archive";
import { HomeState } from "./home-state";
import { createGuestServer } from "./server";
import { Services } from "./services";
import { servicesConfigFromEnv } from "./services-config";

function fail(message: string): never {
  console.error(`guest: ${message}`);
  process.exit(2);
}

const settingsFile = process.argv[2];
if (!settingsFile) fail("usage: guest.mjs <settings file> (the entrypoint writes it from GUEST_CONFIG)");
const settings = readGuestSettings(settingsFile);
if (typeof settings === "string") fail(`the settings file ${settings}`);

const token = settings.GUEST_TOKEN ?? "";
if (token.length < 16) fail("GUEST_TOKEN must be set (at least 16 characters)");
const port = Number(settings.GUEST_PORT ?? "8080");
if (!Number.isInteger(port) || port < 0 || port > 65535) fail("GUEST_PORT must be a port number");
const maxFileBytes = Number(settings.GUEST_MAX_FILE_BYTES ?? String(64 << 20));
if (!Number.isInteger(maxFileBytes) || maxFileBytes <= 0) fail("GUEST_MAX_FILE_BYTES must be a positive integer");
const maxArchiveBytes = Number(settings.GUEST_MAX_ARCHIVE_BYTES ?? String(5 * 2 ** 30));
if (!Number.isInteger(maxArchiveBytes) || maxArchiveBytes <= 0) fail("GUEST_MAX_ARCHIVE_BYTES must be a positive integer");
const warm = settings.GUEST_WARM ?? "0";
if (warm !== "0" && warm !== "1") fail('GUEST_WARM must be "1" or "0"');
const home = settings.GUEST_HOME ?? "/home/agent";
const servicesConfig = servicesConfigFromEnv(settings, home);

// Commands inherit the box's environment; a GUEST_* name there is not a setting of ours
// (secrets cannot take one, OP-SEC-3), and none is passed on. A claim merges its env into
// this very object (exec and services copy it at each spawn), so it is never replaced.
const baseEnv: NodeJS.ProcessEnv = { ...process.env };
for (const name of Object.keys(baseEnv)) if (name.startsWith("GUEST_")) delete baseEnv[name];

const services = new Services(servicesConfig, baseEnv, home);
services.beforeBrowserStop = disconnectBrowser;
const homeState = new HomeState(maxArchiveBytes);
const volume = settings.GUEST_VOLUME ?? "/data";
if (!volume.startsWith("/")) fail("GUEST_VOLUME must be an absolute path");
const identity = new GuestIdentity({ token, warm: warm === "1", baseEnv, saveUrl: settings.GUEST_HOME_SAVE_URL });
const server = createGuestServer({ identity, baseEnv, home, maxFileBytes, services, maxArchiveBytes, homeState, volume, browser: driverOptions(settings) });
server.listen(port, settings.GUEST_HOST ?? "0.0.0.0", () => {
  const address = server.address();
  console.log(`GUEST_LISTENING ${typeof address === "object" && address ? address.port : port}`);
});

// On shutdown, running commands end with the guest (their groups get SIGTERM) and open
// streams are cut; with a save address the home is pushed there first (commands are ended
// before, so it is quiet); the container's entrypoint does whatever must outlive the guest.
const saveTimeoutMs = Number(settings.GUEST_HOME_SAVE_TIMEOUT_MS ?? String(10 * 60_000));
let stopping = false;
async function shutdown(): Promise<void> {
  if (stopping) return;
  stopping = true;
  killAll();
  const saveUrl = identity.saveUrl;
  if (saveUrl) {
    const saved = await pushHomeArchive(saveUrl, { home, services, state: homeState }, saveTimeoutMs);
    console.error("error" in saved ? `guest: home not saved on exit: ${saved.error}` : `guest: home saved on exit (${saved.bytes} bytes)`);
  }
  services.stopAll();
  server.close(() => process.exit(0));
  server.closeAllConnections();
}
for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => void shutdown());
