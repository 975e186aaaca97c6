import { clearToken, getToken } from "./auth";
import type { Row } from "./sse";

/** An error answer of the API: `{"error": {"code", "message", "details"}}` and its status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }

  /** 422 `validation.failed`: the message of each bad field, by field name. */
  fieldErrors(): Record<string, string> {
    const fields = Array.isArray(this.details.fields) ? (this.details.fields as Array<{ field?: unknown; message?: unknown }>) : [];
    const out: Record<string, string> = {};
    for (const f of fields) {
      const name = typeof f.field === "string" ? f.field : "";
      const message = typeof f.message === "string" ? f.message : "invalid";
      out[name] = out[name] ? `${out[name]}; ${message}` : message;
    }
    return out;
  }
}

/** Called when the API says the token is no longer accepted. */
let onUnauthorized: () => void = () => {};
export const setUnauthorizedHandler = (fn: () => void) => {
  onUnauthorized = fn;
};

/** The token was refused outside api() (the event stream): forget it and sign out. */
export function signOutUnauthorized(): void {
  clearToken();
  onUnauthorized();
}

/**
 * A view's answer to its event stream being refused: 401 signs out, otherwise `show` says why.
 *
 * @example onFatal: streamRefused("run", setFailure)
 */
export function streamRefused(what: string, show: (message: string) => void): (status: number) => void {
  return (status) => {
    if (status === 401) signOutUnauthorized();
    else show(status === 404 ? `This ${what} no longer exists.` : `The live stream was refused (${status}).`);
  };
}

/**
 * One JSON call to the API with the session's token.
 *
 * @example const guild = await api<Guild>("POST", "/api/guilds", { name: "Research" });
 */
export async function api<T>(method: string, path: string, body?: unknown, token = getToken()): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  let response: Response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, "network.failed", "The API could not be reached; check your connection and try again");
  }
  const text = await response.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!response.ok) {
    const error = (json as { error?: { code?: string; message?: string; details?: Record<string, unknown> } } | null)?.error;
    const failure = new ApiError(response.status, error?.code ?? `http.${response.status}`, error?.message ?? `The API answered ${response.status}`, error?.details ?? {});
    if (response.status === 401 && token === getToken()) signOutUnauthorized();
    throw failure;
  }
  return json as T;
}

/** The message to show for any failure. */
export const describe = (error: unknown): string =>
  error instanceof ApiError ? `${error.message} (${error.code})` : error instanceof Error ? error.message : String(error);

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/**
 * Every item of a list route, newest first, following `next_cursor` page after page.
 *
 * @example const tokens = await everyPage<ApiToken>("/api/tokens");
 */
export async function everyPage<T>(path: string): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page: Page<T> = await api<Page<T>>("GET", `${path}${path.includes("?") ? "&" : "?"}${query}`);
    items.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return items;
}

export interface Guild {
  id: string;
  name: string;
  description: string;
  routines_enabled: boolean;
  git_author_email: string | null;
  created_at: string;
}

export interface Agent {
  id: string;
  guild_id: string;
  name: string;
  description: string;
  instructions: string;
  model: string;
  model_base_url: string | null;
  model_api_key_secret: string | null;
  max_steps: number;
  max_tool_calls: number;
  max_input_tokens: number;
  keep_tool_result_generations: number;
  projection_policy_version: number;
  thinking_level: "off" | "low" | "medium" | "high";
  browser: boolean;
  coding: boolean;
  cli: boolean;
  scripting: boolean;
  memory: boolean;
  /** Offered the group_post tool: may post to its guild's chat. */
  group_post: boolean;
  browser_language: string;
  max_workspace_mib: number;
  max_scripts: number;
  created_at: string;
}

export interface RunError {
  code: string;
  message: string;
  generation?: number | null;
  at?: string;
}

export interface Run {
  id: string;
  agent_id: string;
  kind: "direct" | "group" | "schedule";
  status: "active" | "completed";
  label: string;
  title: string | null;
  generation: number;
  generating?: boolean;
  cost_usd: string;
  schedule_id: string | null;
  instruction_hash?: string;
  continued_by_run_id?: string;
  errors: RunError[];
  metadata: Record<string, unknown>;
  snapshot?: { model: { model: string }; tools: string[] };
  archived: boolean;
  archived_at: string | null;
  completed_at: string | null;
  created_at: string;
}

/** A routine's random wake window: up to max_wakes wake-ups between start and end, local time in timezone. */
export interface WakeWindow {
  timezone: string;
  start: string;
  end: string;
  max_wakes: number;
}

/** A routine (schedule): a 5-field UTC cron or a random wake window, and the instruction it wakes the agent with. */
export interface Schedule {
  id: string;
  agent_id: string;
  description: string;
  instruction: string;
  instruction_hash: string;
  cron: string | null;
  wake_window: WakeWindow | null;
  paused: boolean;
  next_run_at: string | null;
  last_run_at: string | null;
  window_fires: number;
  created_at: string;
  updated_at: string;
}

export interface Counters {
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  reasoning_tokens: number;
  cost_usd: string;
  calls: number;
}

export interface Usage {
  scope: "agent" | "guild" | "org";
  id: string;
  totals: Counters;
  /** `limit_usd` is the effective limit: the lower of the organisation's own and the operator's ceiling. */
  month?: Counters & { month: string; limit_usd: string | null; monthly_spend_limit_usd: string | null; spend_ceiling_usd: string | null };
}

/** A date range of the usage reports: UTC days, both ends included. */
export interface UsageRange {
  from: string;
  to: string;
  days: number;
}

/** `GET /api/usage/summary`: the range's usage by guild and agent, each with its all-time counter. */
export interface UsageSummary extends UsageRange {
  totals: Counters;
  guilds: Array<Counters & { id: string; name: string; all_time_cost_usd: string }>;
  agents: Array<Counters & { id: string; name: string; guild_id: string; all_time_cost_usd: string }>;
}

/** One UTC day of `GET /api/usage/daily`. */
export interface UsageDay extends Counters {
  date: string;
  /** From the first of the day's month to the end of the day: what the monthly limit is held against. */
  month_to_date_cost_usd: string;
}

export interface UsageDaily extends UsageRange {
  scope: "agent" | "guild" | "org";
  id: string;
  data: UsageDay[];
}

export interface Organisation {
  id: string;
  name: string;
  monthly_spend_limit_usd: string | null;
  /** Set by the platform's operator; the organisation cannot change it. */
  spend_ceiling_usd: string | null;
  limit_usd: string | null;
}

/** Every row of a run after `afterSeq`, in order, page by page. */
export async function loadRows(runId: string, afterSeq = -1): Promise<Row[]> {
  const rows: Row[] = [];
  for (let after = afterSeq; ;) {
    const page = await api<{ data: Row[] }>("GET", `/api/runs/${runId}/messages?after_seq=${after}&limit=1000`);
    rows.push(...page.data);
    if (page.data.length < 1000) return rows;
    after = page.data.at(-1)!.seq;
  }
}

/** A pending deadline of the agent's object (`GET /api/agents/:id/status`). */
export interface AgentDeadline {
  name: string;
  kind: string;
  due_at: string;
  version: number;
  attempts: number;
}

/** Whether the agent generates now, in which run, and its pending deadlines. */
export interface AgentStatus {
  agent_id: string;
  generating: boolean;
  run_id?: string;
  generation?: number;
  started_at?: string;
  lease_until?: string;
  lease_expired?: boolean;
  deadlines: AgentDeadline[];
}
