import * as z from "zod";

/** One bad field of a request body, as the API reports it. */
export interface FieldIssue {
  /** Dotted path of the field (`max_tool_calls`, `wake_window.start`), or "" for the body. */
  field: string;
  message: string;
}

/** What a schema reports of a bad value: a ZodError, or the issues of a Standard Schema validation. */
interface Issues {
  issues: ReadonlyArray<{ message: string; path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> | undefined; code?: string; keys?: string[] }>;
}

/**
 * Flattens a zod error into one entry per bad field, naming unknown keys too.
 *
 * @example fieldIssues(err) // [{ field: "max_tool_calls", message: "Too small: expected number to be >=1" }]
 */
export function fieldIssues(error: Issues): FieldIssue[] {
  const out: FieldIssue[] = [];
  for (const issue of error.issues) {
    const base = (issue.path ?? []).map((p) => String(typeof p === "object" ? p.key : p)).join(".");
    if (issue.code === "unrecognized_keys" && issue.keys) {
      for (const key of issue.keys) out.push({ field: base ? `${base}.${key}` : key, message: "unknown field" });
    } else {
      out.push({ field: base, message: issue.message });
    }
  }
  return out;
}

/** A FieldIssue on the wire (`details.fields` of a 422). */
export const FieldIssueSchema = z
  .object({
    field: z.string().describe('Dotted path of the field, or "" for the body'),
    message: z.string(),
  })
  .meta({ id: "FieldIssue" });

/**
 * Every error answer: `{"error": {"code", "message", "details"}}`. A 422 `validation.failed`
 * names each bad field in `details.fields`; other codes carry their own details.
 */
export const ErrorBody = z
  .object({
    error: z.object({
      code: z.string().describe("Stable machine-readable code, e.g. validation.failed, agent.busy, run.not_found"),
      message: z.string(),
      details: z.looseObject({ fields: z.array(FieldIssueSchema).optional() }),
    }),
  })
  .meta({ id: "Error" });
