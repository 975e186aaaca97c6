/**
 * Task keys (OP-TASK-11): `<PREFIX>-<n>`, the prefix from the repository's name, n the
 * repository's own counter. The key names the branch `factory/task/<KEY>`, the WIP ref
 * `factory/wip/<KEY>` and the volume `task-<key>` (lower case).
 *
 * @example taskKey("acme/web-app", 12) // "WEBAPP-12"
 */

const MAX_PREFIX = 10;

/** The key's prefix: the repository name's letters and digits, upper case, at most 10; "TASK" when none. */
export function keyPrefix(fullName: string): string {
  const name = fullName.split("/").pop() ?? "";
  const letters = name.toUpperCase().replace(/[^A-Z0-9]/g, "");
  return letters.slice(0, MAX_PREFIX) || "TASK";
}

export const taskKey = (fullName: string, number: number) => `${keyPrefix(fullName)}-${number}`;

export const TASK_BRANCH_PREFIX = "factory/task/";
export const WIP_BRANCH_PREFIX = "factory/wip/";

/** @example attemptKey("WEBAPP-12", 2) // "WEBAPP-12/a2" */
export const attemptKey = (parentKey: string, attempt: number) => `${parentKey}/a${attempt}`;

/** @example taskBranch("WEBAPP-12") // "factory/task/WEBAPP-12" */
export const taskBranch = (key: string) => `${TASK_BRANCH_PREFIX}${key}`;
/** @example wipBranch("WEBAPP-12") // "factory/wip/WEBAPP-12" */
export const wipBranch = (key: string) => `${WIP_BRANCH_PREFIX}${key}`;
/**
 * An attempt's `/` becomes `-`: the volume is one name, not a folder (keys are `<PREFIX>-<n>`,
 * so `task-webapp-12-a2` is no other task's).
 *
 * @example volumeName("WEBAPP-12") // "task-webapp-12"
 * @example volumeName("WEBAPP-12/a2") // "task-webapp-12-a2"
 */
export const volumeName = (key: string) => `task-${key.toLowerCase().replaceAll("/", "-")}`;

/**
 * The task volume's object in R2 (OP-TASK-6): a tar of /data under the repository's id, so
 * two repositories whose keys share a prefix never share a volume.
 *
 * @example volumeObjectKey("5f0c…", "WEBAPP-12") // "volumes/5f0c…/task-webapp-12.tar.zst"
 */
export const volumeObjectKey = (repositoryId: string, key: string) => `${repositoryVolumesPrefix(repositoryId)}${volumeName(key)}.tar.zst`;

/** Where a repository's tasks' volumes and its seed are in R2: removing the repository removes all below it. */
export const repositoryVolumesPrefix = (repositoryId: string) => `volumes/${repositoryId}/`;

/** The R2 key of a repository's seed (decision 0037): beside its tasks' volumes, a name no task key makes. */
export const repositorySeedKey = (repositoryId: string) => `${repositoryVolumesPrefix(repositoryId)}seed.tar.zst`;
