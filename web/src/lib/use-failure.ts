import { useState } from "preact/hooks";
import { describe } from "./api";

/**
 * An action on a page's item (delete, revoke, disconnect) and the failure it leaves to show:
 * `attempt` clears the last failure, runs the action, and on an error keeps
 * "Could not <what>: <why>".
 *
 * @example const { failure, attempt } = useFailure();
 *   await attempt(`delete ${guild.name}`, async () => { await unwrap(api.DELETE(…)); await guilds.reload(); });
 */
export function useFailure() {
  const [failure, setFailure] = useState<string | null>(null);
  const attempt = async (what: string, action: () => Promise<unknown>): Promise<void> => {
    setFailure(null);
    try {
      await action();
    } catch (e) {
      setFailure(`Could not ${what}: ${describe(e)}`);
    }
  };
  return { failure, setFailure, attempt };
}
