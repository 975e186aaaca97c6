import * as z from "zod";

/** The agent's machine: `standard` when browser or coding is on, else `lite`. */
export const SandboxBox = z.enum(["lite", "standard"]);

/**
 * `GET /api/agents/:id/sandbox`: the agent's box and where it stands. `reason` says why a
 * box is unavailable (no engine, containers disabled, a failed start); `idle_deadline` is
 * when an idle box is destroyed (SBX-028).
 */
export const SandboxState = z
  .object({
    box: SandboxBox,
    status: z.enum(["none", "starting", "running", "unavailable"]),
    reason: z.string().optional(),
    idle_deadline: z.iso.datetime().optional(),
  })
  .meta({ id: "SandboxState" });

const expiresAt = z.iso.datetime().describe("When the URL's ticket stops opening the view; an open view asks for a new one before (the ticket routes)");

/** `POST /api/agents/:id/browser/start`: the noVNC view to embed, under its ticket. */
export const BrowserView = z
  .object({
    box: SandboxBox,
    vnc_url: z.string().describe("Path of the view page (noVNC, scaled to its frame); its assets and WebSocket live under it"),
    expires_at: expiresAt,
  })
  .meta({ id: "BrowserView" });

/** `POST /api/agents/:id/cli/start`: the ttyd terminal to embed, under its ticket. */
export const CliView = z
  .object({
    box: SandboxBox,
    tty_url: z.string().describe("Path of ttyd's page; its WebSocket lives under it"),
    expires_at: expiresAt,
  })
  .meta({ id: "CliView" });

/** `POST /api/agents/:id/browser/ticket`: the open Browser view's path under a new ticket; the box is not touched. */
export const BrowserTicket = BrowserView.omit({ box: true }).meta({ id: "BrowserTicket" });

/** `POST /api/agents/:id/cli/ticket`: the open CLI view's path under a new ticket; the box is not touched. */
export const CliTicket = CliView.omit({ box: true }).meta({ id: "CliTicket" });

/** The box an agent's flags call for (SBX-003). */
export const boxFor = (flags: { browser: boolean; coding: boolean }): z.infer<typeof SandboxBox> => (flags.browser || flags.coding ? "standard" : "lite");
