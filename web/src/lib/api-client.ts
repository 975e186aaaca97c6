import createClient, { type Client, type Middleware } from "openapi-fetch";
import type { components, paths } from "./api-schema";

/** The API's error body (the document's Error schema). */
type ErrorBody = components["schemas"]["Error"];

/**
 * The typed API client over openapi-fetch, free of the console's session so the contract
 * test drives the running stack with the very same client.
 */

/** An error answer of the API: `{"error": {"code", "message", "details"}}` and its status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorBody["error"]["details"] = {},
  ) {
    super(message);
  }

  /** 422 `validation.failed`: the message of each bad field, by field name. */
  fieldErrors(): Record<string, string> {
    // An answer that is not the API's (a proxy's page) may carry anything: each value is checked.
    const fields: Array<Partial<Record<"field" | "message", unknown>>> = Array.isArray(this.details.fields) ? this.details.fields : [];
    const out: Record<string, string> = {};
    for (const f of fields) {
      const name = typeof f.field === "string" ? f.field : "";
      const message = typeof f.message === "string" ? f.message : "invalid";
      out[name] = out[name] ? `${out[name]}; ${message}` : message;
    }
    return out;
  }
}

export type ApiClient = Client<paths>;

export interface ApiClientOptions {
  /** Origin of the API; "" in the console (same origin). */
  baseUrl: string;
  /** The bearer token to send, read on every request. */
  token: () => string | null;
  /** The token sent was refused (401) and is still the current one. */
  onUnauthorized?: () => void;
  /** More middleware, after the bearer token's (the contract test records each answer). */
  middleware?: Middleware[];
}

/**
 * A client whose requests carry the bearer token (unless the call sets its own
 * `authorization`), asking for JSON.
 *
 * @example const api = createApiClient({ baseUrl: "", token: getToken });
 *          const guild = await unwrap(api.GET("/api/guilds/{id}", { params: { path: { id } } }));
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const client = createClient<paths>({ baseUrl: options.baseUrl, headers: { accept: "application/json" } });
  const bearer = (token: string | null) => (token ? `Bearer ${token}` : null);
  client.use({
    onRequest({ request }) {
      const token = bearer(options.token());
      if (token && !request.headers.has("authorization")) request.headers.set("authorization", token);
      return request;
    },
    onResponse({ request, response }) {
      // A refusal of a token other than the session's (sign-in trying one) signs nobody out.
      if (response.status === 401 && request.headers.get("authorization") === bearer(options.token())) options.onUnauthorized?.();
      return response;
    },
  });
  if (options.middleware) client.use(...options.middleware);
  return client;
}

/** What an openapi-fetch call settles with: the success body, or the error body. */
interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * The success body of a call, or an ApiError for an error answer or an unreachable API.
 *
 * @example const run = await unwrap(api.POST("/api/runs/{id}/cancel", { params: { path: { id } } }));
 */
export async function unwrap<T>(pending: Promise<Answer<T>>): Promise<T> {
  let answer: Answer<T>;
  try {
    answer = await pending;
  } catch {
    throw new ApiError(0, "network.failed", "The API could not be reached; check your connection and try again");
  }
  if (answer.response.ok) return answer.data as T;
  throw answerError(answer.response, answer.error);
}

/**
 * The ApiError of an error answer and its parsed body (the event streams read theirs with
 * fetch): its code and message, and Retry-After's seconds in details.retry_after_s.
 */
export function answerError(response: Response, body: unknown): ApiError {
  // Not every error answer is the API's own (a proxy's page): each part of the body is optional here.
  const error = (body as { error?: Partial<ErrorBody["error"]> } | undefined)?.error;
  const details: Record<string, unknown> = { ...error?.details };
  // A 503 or 429 says when to ask again in Retry-After (seconds); the details carry it for the views.
  const retryAfter = Number(response.headers.get("retry-after"));
  if (details.retry_after_s === undefined && retryAfter > 0) details.retry_after_s = retryAfter;
  return new ApiError(response.status, error?.code ?? `http.${response.status}`, error?.message ?? `The API answered ${response.status}`, details);
}

/**
 * Every item of a list route, following `next_cursor` page after page.
 *
 * @example const tokens = await everyPage((cursor) => unwrap(api.GET("/api/tokens", { params: { query: { limit: 200, cursor } } })));
 */
export async function everyPage<T>(page: (cursor: string | undefined) => Promise<{ data: T[]; next_cursor: string | null }>): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const next = await page(cursor);
    items.push(...next.data);
    cursor = next.next_cursor ?? undefined;
  } while (cursor);
  return items;
}
