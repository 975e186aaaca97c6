import * as z from "zod";

/** The agent's machine: `standard` when browser or coding is on, else `lite`. */
export const SandboxBox = z.enum(["lite", "standard"]);

/** The last save of the home failed: the box is kept and the save retried until one succeeds. */
export const HomeSaveError = z
  .object({
    code: z.literal("sandbox.home_save_failed"),
    cause: z.string().describe("Why the save failed: workspace.full (the archive passed the workspace limit), or the box's or storage's code"),
    message: z.string(),
    failed_at: z.iso.datetime(),
    attempts: z.number().int().describe("Failed saves in a row"),
    next_attempt_at: z.iso.datetime().optional().describe("When the save is tried again (the backoff grows to 5 minutes)"),
  })
  .meta({ id: "HomeSaveError" });

/**
 * `GET /api/agents/:id/sandbox`: the agent's box and where it stands. `reason` says why a
 * box is unavailable (no engine, containers disabled, a failed start); `idle_deadline` is
 * when an idle box is destroyed (SBX-028); `home_save_error` that its home could not be
 * saved (the box is kept); `saved_home` the archive the next box restores.
 */
export const SandboxState = z
  .object({
    box: SandboxBox,
    status: z.enum(["none", "starting", "running", "unavailable"]),
    reason: z.string().optional(),
    idle_deadline: z.iso.datetime().optional(),
    home_save_error: HomeSaveError.optional(),
    saved_home: z
      .object({ bytes: z.number().int(), saved_at: z.iso.datetime() })
      .nullable()
      .describe("The home saved in storage, restored into the next box; null when there is none"),
  })
  .meta({ id: "SandboxState" });

/** `POST /api/agents/:id/sandbox/reset`: the home was reset. */
export const HomeReset = z
  .object({
    reset: z.literal(true),
    destroyed: z.boolean().describe("Whether a running box was destroyed (without saving its home)"),
  })
  .meta({ id: "HomeReset" });

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
