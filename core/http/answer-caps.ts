/**
 * How much of each kind of outside answer is read (core/http/read-within.ts holds them to it).
 * The agent object lives in a 128 MB isolate: a peer that streams without end must meet an
 * error naming it long before that, whatever later caps (a tool result's 64 KiB) would do
 * with what was read. Each cap is well above the largest legitimate answer of its kind.
 */
import type { AnswerCap } from "./read-within";

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * OAuth documents: authorization server and protected resource metadata (RFC 8414, RFC 9728,
 * OpenID Connect discovery), client registration and token answers. The largest real ones
 * (an OpenID configuration listing every claim, a token answer with an id_token) are tens of KiB.
 */
export const OAUTH_ANSWER_CAP: AnswerCap = { peer: "the authorization server", maxBytes: 256 * KiB };

/** An MCP server's protected resource metadata (RFC 9728): a resource, its authorization servers and scopes. */
export const RESOURCE_METADATA_CAP: AnswerCap = { peer: "the MCP server", maxBytes: 256 * KiB };

/**
 * MCP messages: a tools/list of hundreds of tools with schemas is about 1 MiB, and a tool
 * result may carry a base64 image of a few MiB. Streamed answers are held per event, not
 * as a whole: the older HTTP+SSE transport carries every answer of a session on one stream.
 */
export const MCP_ANSWER_CAP: AnswerCap = { peer: "the MCP server", maxBytes: 8 * MiB, maxEventBytes: 8 * MiB };

/**
 * A model provider. A streamed completion is read as it comes: a reply is itself held to
 * 2 MiB (DEFAULT_REPLY_LIMITS), but each token travels in an event of some 250 bytes, so the
 * longest legitimate stream (100k+ output tokens) is some tens of MiB. One event may hold a
 * whole reply at once from a provider that does not stream token by token. Anything not
 * streamed (an error, the group selector's JSON) is small.
 */
export const MODEL_ANSWER_CAP: AnswerCap = { peer: "the model provider", maxBytes: 8 * MiB, maxEventBytes: 8 * MiB, streamMaxBytes: 128 * MiB };

/**
 * The forge's REST JSON: a page of 100 pull requests with their bodies, a compare with its
 * commits and files, an installation's repositories. A few MiB at most.
 */
export const FORGE_ANSWER_CAP: AnswerCap = { peer: "GitHub", maxBytes: 16 * MiB };

/** Tavily's search answer: at most ten results with their content, cut further for the tool result. */
export const SEARCH_ANSWER_CAP: AnswerCap = { peer: "the search provider", maxBytes: 2 * MiB };

/** The o200k_base rank table among the Worker's own assets: about 2.3 MB of JSON (js-tiktoken's table). */
export const RANK_ASSET_CAP: AnswerCap = { peer: "the rank table asset", maxBytes: 8 * MiB };
