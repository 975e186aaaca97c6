import { eq, sql } from "drizzle-orm";
import { type TaskSettings, taskSettings } from "../tasks/settings";
import type { AnyDatabase } from "./client";
import { organisations } from "./schema";

/** The organisation's task settings (core/tasks/settings.ts) as stored on its row: read by the queue and the API, set by the API. */

/** The organisation's effective task settings (defaults for keys it has not set). */
export async function organisationTaskSettings(db: AnyDatabase, organisationId: string): Promise<TaskSettings> {
  const [row] = await db.select({ settings: organisations.taskSettings }).from(organisations).where(eq(organisations.id, organisationId));
  return taskSettings(row?.settings);
}

/** Sets the given keys of the organisation's task settings, keeping the others; the effective settings after. */
export async function patchTaskSettings(db: AnyDatabase, organisationId: string, patch: Partial<TaskSettings>): Promise<TaskSettings> {
  const [row] = await db
    .update(organisations)
    .set({ taskSettings: sql`${organisations.taskSettings} || ${JSON.stringify(patch)}::jsonb`, updatedAt: sql`now()` })
    .where(eq(organisations.id, organisationId))
    .returning({ settings: organisations.taskSettings });
  return taskSettings(row?.settings);
}
