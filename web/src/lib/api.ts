import { ApiError, createApiClient, unwrap } from "./api-client";
import type { Row } from "./api-types";
import { clearToken, getToken } from "./auth";
import { isDatabaseUnavailable, RETRYING_MESSAGE, TRY_AGAIN_MESSAGE } from "./unavailable";

export { ApiError, everyPage, unwrap } from "./api-client";
export type * from "./api-types";

/** Called when the API says the token is no longer accepted. */
let onUnauthorized: () => void = () => {};
export const setUnauthorizedHandler = (fn: () => void) => {
  onUnauthorized = fn;
};

/** The token was refused (by a call or the event stream): forget it and sign out. */
export function signOutUnauthorized(): void {
  clearToken();
  onUnauthorized();
}

/**
 * The console's API client: same origin, the session's token, a refused token signs out.
 *
 * @example const guild = await unwrap(api.POST("/api/guilds", { body: { name: "Research" } }));
 */
export const api = createApiClient({ baseUrl: "", token: getToken, onUnauthorized: signOutUnauthorized });

/**
 * A view's answer to its event stream being refused: 401 signs out, otherwise `show` says why.
 *
 * @example onFatal: streamRefused("run", setFailure)
 */
export function streamRefused(what: string, show: (message: string) => void): (status: number) => void {
  return (status) => {
    if (status === 401) signOutUnauthorized();
    else show(status === 404 ? `This ${what} no longer exists.` : `The live stream was refused (${status}).`);
  };
}

/** The message to show for any failure. */
export const describe = (error: unknown): string =>
  isDatabaseUnavailable(error)
    ? TRY_AGAIN_MESSAGE
    : error instanceof ApiError
      ? `${error.message} (${error.code})`
      : error instanceof Error
        ? error.message
        : String(error);

/** The message for a failed read, which the view makes again while the database does not answer (unavailable.ts). */
export const describeRead = (error: unknown): string => (isDatabaseUnavailable(error) ? RETRYING_MESSAGE : describe(error));

/** Every row of a run after `afterSeq`, in order, page by page. */
export async function loadRows(runId: string, afterSeq = -1): Promise<Row[]> {
  const rows: Row[] = [];
  for (let after = afterSeq; ; ) {
    const page = await unwrap(api.GET("/api/runs/{id}/messages", { params: { path: { id: runId }, query: { after_seq: after, limit: 1000 } } }));
    rows.push(...page.data);
    if (page.data.length < 1000) return rows;
    after = page.data.at(-1)!.seq;
  }
}
