/** A `uses:` line of a workflow that does not name a full commit SHA. */
export interface UnpinnedAction {
  line: number;
  uses: string;
}

/**
 * The `uses:` of other repositories' actions and reusable workflows not pinned to a 40-digit
 * commit SHA; local (`./…`) and `docker://` references are the repository's own choice.
 *
 * @example unpinnedActions("steps:\n  - uses: actions/checkout@v5\n") // [{ line: 2, uses: "actions/checkout@v5" }]
 */
export function unpinnedActions(workflow: string): UnpinnedAction[] {
  const found: UnpinnedAction[] = [];
  workflow.split("\n").forEach((text, index) => {
    const match = /^\s*(?:-\s+)?uses:\s*["']?([^\s"'#]+)/.exec(text);
    const uses = match?.[1];
    if (!uses || uses.startsWith("./") || uses.startsWith("docker://")) return;
    if (!/@[0-9a-f]{40}$/.test(uses)) found.push({ line: index + 1, uses });
  });
  return found;
}
