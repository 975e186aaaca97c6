/**
 * Web search through Tavily (EXACT-015): the request the agent object sends, and the
 * answer cut to what a tool result may hold. The key travels in the Authorization header
 * from the platform to TAVILY_API_URL only; no box ever sees it. Pure: fetch is passed in.
 */
import { SEARCH_ANSWER_CAP } from "../http/answer-caps";
import { AnswerTooLarge, readTextWithin } from "../http/read-within";

/** Tavily's own address; TAVILY_API_URL replaces it (the local stack's stand-in). */
export const TAVILY_DEFAULT_URL = "https://api.tavily.com";
/** A search that has not answered by then fails: the model reads the error and goes on. */
export const SEARCH_TIMEOUT_MS = 20_000;
/** Most results one search returns (the model may ask for fewer). */
export const SEARCH_MAX_RESULTS = 10;
export const SEARCH_DEFAULT_RESULTS = 5;
/** Characters kept of one result's content, and of the whole result text. */
export const SEARCH_SNIPPET_CHARS = 1_500;
export const SEARCH_RESULT_CHARS = 12_000;

export interface SearchRequest {
  query: string;
  maxResults: number;
  /** Tavily's `topic`: general (default) or news. */
  topic?: "general" | "news";
}

/** One result as the tool shows it: numbered, with its URL for citation. */
export interface SearchHit {
  title: string;
  url: string;
  content: string;
}

export interface SearchAnswer {
  answer: string | null;
  results: SearchHit[];
}

/** What the tools call: the platform's search, bound to its key and address. */
export type WebSearch = (request: SearchRequest, signal?: AbortSignal) => Promise<SearchAnswer>;

/** A search the provider refused or could not answer; the message holds no key. */
export class SearchError extends Error {}

/**
 * The platform's search over Tavily's POST /search, or null without a key (then no run is
 * offered tavily_search). `fetcher` is the global fetch in the Worker.
 *
 * @example const search = tavilySearch({ apiKey: env.TAVILY_API_KEY, apiUrl: env.TAVILY_API_URL });
 */
export function tavilySearch(options: { apiKey?: string; apiUrl?: string; fetcher?: typeof fetch; timeoutMs?: number }): WebSearch | null {
  const { apiKey } = options;
  if (!apiKey) return null;
  const base = (options.apiUrl || TAVILY_DEFAULT_URL).replace(/\/+$/, "");
  const fetcher = options.fetcher ?? fetch;
  const timeoutMs = options.timeoutMs ?? SEARCH_TIMEOUT_MS;
  return async (request, signal) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const response = await fetcher(`${base}/search`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({
        query: request.query,
        max_results: Math.min(Math.max(1, request.maxResults), SEARCH_MAX_RESULTS),
        topic: request.topic ?? "general",
        search_depth: "basic",
        include_answer: true,
      }),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    }).catch((error: unknown) => {
      if (timeout.aborted) throw new SearchError(`the search provider did not answer within ${Math.round(timeoutMs / 1000)} s`);
      throw new SearchError(`the search provider could not be reached: ${(error as Error)?.message ?? String(error)}`);
    });
    const text = await readCapped(response);
    if (!response.ok) throw new SearchError(`the search provider answered HTTP ${response.status}${detail(text)}`);
    return parseAnswer(text, request.maxResults);
  };
}

/** Tavily's JSON answer as hits, at most `maxResults`; anything else is a SearchError. */
export function parseAnswer(text: string, maxResults: number): SearchAnswer {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new SearchError("the search provider's answer is not JSON");
  }
  const results = (body as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) throw new SearchError("the search provider's answer has no results list");
  const hits = results
    .filter((r): r is Record<string, unknown> => typeof r === "object" && r !== null && typeof (r as { url?: unknown }).url === "string")
    .slice(0, Math.min(maxResults, SEARCH_MAX_RESULTS))
    .map((r) => ({
      title: typeof r.title === "string" ? oneLine(r.title).slice(0, 300) : "",
      url: r.url as string,
      content: typeof r.content === "string" ? r.content : "",
    }));
  const answer = (body as { answer?: unknown }).answer;
  return { answer: typeof answer === "string" && answer.trim() ? answer.trim() : null, results: hits };
}

/**
 * The tool result: each hit numbered with its title, URL and a cut snippet, then a sources
 * list, so the model can cite what it uses. At most SEARCH_RESULT_CHARS: later hits are
 * dropped whole rather than half shown.
 *
 * @example formatResults("cats", { answer: null, results: [{ title: "Cats", url: "https://e.x/c", content: "…" }] })
 * // 'Search results for "cats" (1):\n\n[1] Cats\nURL: https://e.x/c\n…\n\nSources:\n[1] https://e.x/c'
 */
export function formatResults(query: string, found: SearchAnswer): string {
  if (found.results.length === 0) return `No results for ${JSON.stringify(query)}.`;
  const head = `Search results for ${JSON.stringify(query)} (${found.results.length}):`;
  const summary = found.answer ? `\n\nSummary: ${found.answer.slice(0, SEARCH_SNIPPET_CHARS)}` : "";
  const blocks: string[] = [];
  const sources: string[] = [];
  let used = head.length + summary.length;
  for (const [i, hit] of found.results.entries()) {
    const snippet = hit.content.length > SEARCH_SNIPPET_CHARS ? `${hit.content.slice(0, SEARCH_SNIPPET_CHARS)}…` : hit.content;
    const block = `[${i + 1}] ${hit.title || hit.url}\nURL: ${hit.url}\n${snippet}`;
    const source = `[${i + 1}] ${hit.url}`;
    if (used + block.length + source.length + 16 > SEARCH_RESULT_CHARS && blocks.length > 0) break;
    blocks.push(block);
    sources.push(source);
    used += block.length + source.length + 3;
  }
  const dropped = found.results.length - blocks.length;
  const more = dropped > 0 ? `\n\n(${dropped} more result(s) left out to keep this short)` : "";
  return `${head}${summary}\n\n${blocks.join("\n\n")}${more}\n\nSources:\n${sources.join("\n")}`;
}

/** The answer's text within SEARCH_ANSWER_CAP: a provider answering more is refused, not buffered. */
async function readCapped(response: Response): Promise<string> {
  try {
    return await readTextWithin(response, SEARCH_ANSWER_CAP);
  } catch (error) {
    if (error instanceof AnswerTooLarge) throw new SearchError(error.message.replace(/^T/, "t"));
    throw error;
  }
}

/** The provider's own words about a refusal, short; the caller's redactor hides any key it echoes. */
function detail(text: string): string {
  let said = text;
  try {
    const body = JSON.parse(text) as { detail?: { error?: unknown } | unknown; error?: unknown; message?: unknown };
    const inner = (body.detail as { error?: unknown } | undefined)?.error ?? body.detail ?? body.error ?? body.message;
    if (typeof inner === "string") said = inner;
  } catch {
    // not JSON: its text speaks
  }
  const line = oneLine(said).slice(0, 300);
  return line ? `: ${line}` : "";
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
