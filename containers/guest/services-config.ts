/**
 * The desktop services' settings and command lines (pure). The programs are overridable by
 * the guest's settings (config.ts) so the guest's logic can be tested where no Xvnc or Chromium is installed:
 *   GUEST_XVNC_BIN, GUEST_CHROMIUM_BIN, GUEST_WEBSOCKIFY_BIN  the programs (default: by name)
 *   GUEST_VNC_DISPLAY   X display number (default 1; VNC on 127.0.0.1:5900+N)
 *   GUEST_CDP_URL       where Chromium's DevTools answer (default http://127.0.0.1:9222)
 *   GUEST_NOVNC_PORT    noVNC's port (default 6080, on 0.0.0.0)
 *   GUEST_NOVNC_WEB     noVNC's page (default /usr/share/novnc)
 *   GUEST_SERVICE_LOG_DIR  where each service's output goes (default /var/log/sandbox)
 */
import { join } from "node:path";

export interface ServicesConfig {
  xvncBin: string;
  chromiumBin: string;
  websockifyBin: string;
  display: number;
  cdpPort: number;
  novncPort: number;
  novncWeb: string;
  logDir: string;
  /** Chromium's profile: `<home>/.browser`, saved with the home. */
  profileDir: string;
}

/** The desktop's fixed size (SBX-014). */
export const SCREEN = { width: 1280, height: 720 } as const;

export function servicesConfigFromEnv(env: Readonly<Record<string, string | undefined>>, home: string): ServicesConfig {
  const cdp = new URL(env.GUEST_CDP_URL ?? "http://127.0.0.1:9222");
  return {
    xvncBin: env.GUEST_XVNC_BIN ?? "Xvnc",
    chromiumBin: env.GUEST_CHROMIUM_BIN ?? "chromium",
    websockifyBin: env.GUEST_WEBSOCKIFY_BIN ?? "websockify",
    display: Number(env.GUEST_VNC_DISPLAY ?? "1"),
    cdpPort: Number(cdp.port || "9222"),
    novncPort: Number(env.GUEST_NOVNC_PORT ?? "6080"),
    novncWeb: env.GUEST_NOVNC_WEB ?? "/usr/share/novnc",
    logDir: env.GUEST_SERVICE_LOG_DIR ?? "/var/log/sandbox",
    profileDir: join(home, ".browser"),
  };
}

/**
 * A browser language as Chromium's --lang takes it (a BCP 47 tag).
 *
 * @example isBrowserLanguage("en-US") // true
 * @example isBrowserLanguage("en US") // false
 */
export function isBrowserLanguage(language: string): boolean {
  return /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8}){0,3}$/.test(language);
}

export const vncPort = (config: ServicesConfig) => 5900 + config.display;

/** TigerVNC's X server: the locked 1280x720 desktop, VNC reachable from inside the box only. */
export function xvncArgs(config: ServicesConfig): string[] {
  return [
    `:${config.display}`,
    "-geometry",
    `${SCREEN.width}x${SCREEN.height}`,
    "-depth",
    "24",
    "-rfbport",
    String(vncPort(config)),
    "-localhost",
    "-SecurityTypes",
    "None",
    "-AlwaysShared",
    // Viewers scale the picture; none may resize the desktop the agent's browser sees.
    "-AcceptSetDesktopSize=0",
    "-nolisten",
    "tcp",
  ];
}

/** Chromium on that desktop with CDP on loopback (SBX-014..016). */
export function chromiumArgs(config: ServicesConfig, language: string): string[] {
  return [
    // The box runs Chromium as root, where its own sandbox cannot start.
    "--no-sandbox",
    // Without it Chromium shows "You are using an unsupported command-line flag: --no-sandbox"
    // as a bar over every page, in the Browser tab and in every screenshot the model sees
    // (and shortens the page by its height); --test-type is the switch that skips that bar.
    "--test-type",
    `--user-data-dir=${config.profileDir}`,
    "--remote-debugging-address=127.0.0.1",
    `--remote-debugging-port=${config.cdpPort}`,
    `--lang=${language}`,
    "--disable-background-networking",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
    "--no-default-browser-check",
    // Docker's default /dev/shm is 64 MiB, too small for Chromium's renderers.
    "--disable-dev-shm-usage",
    "--password-store=basic",
    "--window-position=0,0",
    `--window-size=${SCREEN.width},${SCREEN.height}`,
    "about:blank",
  ];
}

/** websockify serving noVNC's page and bridging its WebSocket to the VNC port. */
export function websockifyArgs(config: ServicesConfig): string[] {
  return ["--web", config.novncWeb, `0.0.0.0:${config.novncPort}`, `127.0.0.1:${vncPort(config)}`];
}
