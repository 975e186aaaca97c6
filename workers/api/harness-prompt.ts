/**
 * The prompt of an assistant row a harness's model call made (decision 0032): not rebuilt from
 * rows (the harness made its own prompt) but the exact request the model gateway sent, kept
 * redacted in R2 under its SHA-256, which the row names. Null for any other row.
 */
import { and, eq } from "drizzle-orm";
import { sha256Hex } from "../../core/bytes/sha256";
import type { Database } from "../../core/db/client";
import { messages } from "../../core/db/schema";
import { readWithin } from "../../core/http/read-within";

/** A kept request is at most what a harness call may carry (gateway-turn.ts MAX_CALL_BYTES). */
const MAX_REQUEST_BYTES = 32 * 1024 * 1024;

export async function harnessPrompt(bucket: R2Bucket, db: Database, runId: string, seq: number) {
  const [row] = await db
    .select({ role: messages.role, metadata: messages.metadata })
    .from(messages)
    .where(and(eq(messages.runId, runId), eq(messages.seq, seq)))
    .limit(1);
  const metadata = (row?.metadata ?? {}) as { model?: unknown; request?: { sha256?: unknown; key?: unknown } };
  if (row?.role !== "assistant" || typeof metadata.request?.sha256 !== "string") return null;
  const recorded = metadata.request.sha256;
  const kept = typeof metadata.request.key === "string" ? await bucket.get(metadata.request.key) : null;
  const bytes = kept ? await readWithin(kept.body, MAX_REQUEST_BYTES) : null;
  const text = bytes ? new TextDecoder().decode(bytes) : null;
  const request = text === null ? null : (JSON.parse(text) as Record<string, unknown>);
  const hash = text === null ? "" : await sha256Hex(text);
  return {
    seq,
    model: typeof request?.model === "string" ? request.model : String(metadata.model ?? ""),
    messages: [],
    tools: [],
    request,
    hash,
    recorded_hash: recorded,
    matches: hash === recorded,
  };
}
