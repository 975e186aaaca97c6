import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Refused } from "../../bindings/outcome";
import { RETRY_AFTER_S } from "../../core/db/client";
import type { FieldIssue } from "../../core/validation/issues";

/**
 * An error the API reports to its caller as
 * `{"error": {"code", "message", "details"}}` with the given status.
 *
 * @example throw new ApiError(409, "agent.busy", "The agent is generating", { run_id })
 */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** The agent object's answer, or its refusal thrown as the API's error. */
export function settle<T extends { ok: boolean }>(result: T): Extract<T, { ok: true }> {
  if (!result.ok) {
    const refusal = result as unknown as Refused;
    throw new ApiError(refusal.status, refusal.code, refusal.message, refusal.details);
  }
  return result as Extract<T, { ok: true }>;
}

/** 404 for anything missing or outside the caller's organisation (never 403). */
export const notFound = (what: string) => new ApiError(404, `${what}.not_found`, `No such ${what}`);

/** 422 naming each bad field. */
export const validationFailed = (fields: FieldIssue[]) =>
  new ApiError(422, "validation.failed", `Invalid ${fields.map((f) => f.field || "body").join(", ")}: ${fields.map((f) => f.message).join("; ")}`, { fields });

/**
 * 503 while the database does not answer (past a call's deadline, refused or reset), here
 * or in an object; `Retry-After` says when to ask again.
 */
export const databaseUnavailable = () =>
  new ApiError(503, DATABASE_UNAVAILABLE, "The database is not answering right now; try again shortly", { retry_after_s: RETRY_AFTER_S });

export const DATABASE_UNAVAILABLE = "database.unavailable";

export function errorResponse(c: Context, error: ApiError): Response {
  if (error.code === DATABASE_UNAVAILABLE) c.header("Retry-After", String(RETRY_AFTER_S));
  return c.json({ error: { code: error.code, message: error.message, details: error.details } }, error.status);
}
