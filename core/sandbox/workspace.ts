/**
 * The workspace limit (SBX-040, SBX-041, OP-SBX-10): sizes in mebibytes, the limit the
 * smaller of the agent's max_workspace_mib and the host's WORKSPACE_MAX_MIB.
 */

/** OP-SBX-10: the host's limit when WORKSPACE_MAX_MIB is unset. */
export const DEFAULT_WORKSPACE_MAX_MIB = 2048;

/** @example workspaceLimitMib(4096, "2048") // 2048 */
export function workspaceLimitMib(agentMaxMib: number, hostMax: string | undefined): number {
  const host = Number(hostMax);
  return Math.min(agentMaxMib, Number.isSafeInteger(host) && host > 0 ? host : DEFAULT_WORKSPACE_MAX_MIB);
}

/** Whole mebibytes, rounded up: one byte over a limit is over it. @example bytesToMib(1) // 1 */
export function bytesToMib(bytes: number): number {
  return Math.ceil(bytes / 1_048_576);
}

/** SBX-040: only a stored size above the limit is measured again at generation start. */
export function overLimit(mib: number | null, limitMib: number): boolean {
  return mib !== null && mib > limitMib;
}

/** The most a home's archive may hold whatever the limits say: the largest single R2 upload. */
export const HOME_ARCHIVE_CEILING_BYTES = 5 * 2 ** 30;

/**
 * The one cap of a home's archive, at save and at restore: the workspace limit in bytes,
 * at most the ceiling. Compressed, an archive is no larger than the files it holds (give or
 * take tar's headers), so an archive past it means a workspace past its limit.
 *
 * @example homeCapBytes(1, "2048") // 1048576
 */
export function homeCapBytes(agentMaxMib: number, hostMax: string | undefined): number {
  return Math.min(workspaceLimitMib(agentMaxMib, hostMax) * 1_048_576, HOME_ARCHIVE_CEILING_BYTES);
}
