import type * as z from "zod";

/** One bad field of a request body, as the API reports it. */
export interface FieldIssue {
  /** Dotted path of the field (`max_tool_calls`, `wake_window.start`), or "" for the body. */
  field: string;
  message: string;
}

/**
 * Flattens a zod error into one entry per bad field, naming unknown keys too.
 *
 * @example fieldIssues(err) // [{ field: "max_tool_calls", message: "Too small: expected number to be >=1" }]
 */
export function fieldIssues(error: z.ZodError): FieldIssue[] {
  const out: FieldIssue[] = [];
  for (const issue of error.issues) {
    const base = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) out.push({ field: base ? `${base}.${key}` : key, message: "unknown field" });
    } else {
      out.push({ field: base, message: issue.message });
    }
  }
  return out;
}
