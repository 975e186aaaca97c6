/**
 * GitHub's GraphQL endpoint (`POST /api/graphql`) for the one mutation the platform sends:
 * `markPullRequestReadyForReview(input: {pullRequestId})`, the id inline or from variables
 * (`$id`, or `$input` as a whole). Not a GraphQL parser: the mutation is found by pattern,
 * the fields of its `pullRequest` selection answered from those the forge knows. Errors come
 * in GraphQL's shape (HTTP 200, `errors: [{type, path, message}]`), a bad token as REST's 401.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { bearer, ForgeError, readJson, sendJson } from "./http";
import { type PullsContext, pullBody } from "./pulls";

const MUTATION = /(?:(\w+)\s*:\s*)?markPullRequestReadyForReview\s*\(\s*input\s*:\s*(\{[^}]*\}|\$\w+)\s*\)\s*\{([\s\S]*)\}/;
const PULL_REQUEST_ID = /pullRequestId\s*:\s*("(?:[^"\\]|\\.)*"|\$\w+)/;

type GraphQLError = { type?: string; path?: string[]; message: string };

/** Serves `POST /graphql` (below `/api`); false for any other path. */
export async function serveGraphQL(ctx: PullsContext, req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
  if (path !== "/graphql" || req.method !== "POST") return false;
  const token = bearer(req);
  if (token === null) throw new ForgeError(401, "This endpoint requires you to be authenticated.");
  if (!ctx.state.liveToken(token)) throw new ForgeError(401, "Bad credentials");
  const { query, variables = {} } = await readJson(req);
  const match = typeof query === "string" ? MUTATION.exec(query) : null;
  if (!match) {
    sendJson(res, 200, { errors: [{ message: "The forge's GraphQL answers only the mutation markPullRequestReadyForReview" }] });
    return true;
  }
  const field = match[1] ?? "markPullRequestReadyForReview";
  const fail = (error: GraphQLError) => sendJson(res, 200, { data: { [field]: null }, errors: [{ path: [field], ...error }] });
  const id = pullRequestId(match[2]!, typeof variables === "object" && variables !== null ? (variables as Record<string, unknown>) : {});
  if (typeof id !== "string") {
    fail({ message: "Argument 'pullRequestId' on InputObject 'MarkPullRequestReadyForReviewInput' is required. Expected type ID!" });
    return true;
  }
  const pull = ctx.state.pulls.byNodeId(id);
  // GitHub does not tell a node it hides from one that does not exist.
  if (!pull || !ctx.state.reaches(token, pull.full_name)) {
    fail({ type: "NOT_FOUND", message: `Could not resolve to a node with the global id of '${id}'.` });
    return true;
  }
  if (ctx.state.access(token, pull.full_name, "pull_requests") !== "write") {
    fail({ type: "FORBIDDEN", message: "Resource not accessible by integration" });
    return true;
  }
  if (pull.draft) {
    pull.draft = false;
    pull.ready_at = new Date().toISOString();
    pull.updated_at = pull.ready_at.replace(/\.\d{3}Z$/, "Z");
  }
  const rest = await pullBody(ctx, pull);
  const known: Record<string, unknown> = {
    id: pull.node_id,
    number: pull.number,
    isDraft: pull.draft,
    url: rest.html_url,
    state: pull.state.toUpperCase(),
    title: pull.title,
    headRefName: pull.head,
    baseRefName: pull.base,
  };
  const selection = /pullRequest\s*\{([^}]*)\}/.exec(match[3]!)?.[1] ?? "";
  const fields = selection.match(/\w+/g) ?? [];
  const pullRequest = Object.fromEntries(fields.filter((name) => name in known).map((name) => [name, known[name]]));
  sendJson(res, 200, { data: { [field]: { pullRequest } } });
  return true;
}

/** The id from `{pullRequestId: "…"}`, `{pullRequestId: $id}` or `$input` with its variables. */
function pullRequestId(input: string, variables: Record<string, unknown>): unknown {
  if (input.startsWith("$")) {
    const value = variables[input.slice(1)];
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>).pullRequestId : undefined;
  }
  const id = PULL_REQUEST_ID.exec(input)?.[1];
  if (id === undefined) return undefined;
  return id.startsWith("$") ? variables[id.slice(1)] : JSON.parse(id);
}
