import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
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

/** 404 for anything missing or outside the caller's organisation (never 403). */
export const notFound = (what: string) => new ApiError(404, `${what}.not_found`, `No such ${what}`);

/** 422 naming each bad field. */
export const validationFailed = (fields: FieldIssue[]) =>
  new ApiError(422, "validation.failed", `Invalid ${fields.map((f) => f.field || "body").join(", ")}: ${fields.map((f) => f.message).join("; ")}`, { fields });

export function errorResponse(c: Context, error: ApiError): Response {
  return c.json({ error: { code: error.code, message: error.message, details: error.details } }, error.status);
}
