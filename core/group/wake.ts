/**
 * Who a public group row wakes, and the Group Chat info wake a delivery opens with
 * (GROUP-002, OP-GROUP-1, OP-GROUP-2). Pure: the guild object, the agent object and the
 * tests share it.
 *
 * The rule: a new public row queues a delivery for every other participating agent of
 * the guild (the non-archived ones); its author is never woken by its own row. The
 * ping-pong guard is the row's `depth`: an operator post is depth 0, so is a post an
 * agent makes outside a group run; a post made inside a group run is one more than the
 * shallowest row that woke that run. Rows deeper than MAX_WAKE_DEPTH wake nobody. They
 * stay public and arrive with the next delivery, so two agents replying to each other
 * stop after a fixed number of exchanges, and any operator post starts a new exchange.
 */

/** Rows up to this depth wake agents: operator → reply → reply to the reply. */
export const MAX_WAKE_DEPTH = 2;

/** A public row as the wake rule reads it. */
export interface PublicRow {
  seq: number;
  authorKind: "operator" | "agent";
  authorAgentId: string | null;
  authorName: string;
  content: string;
  /** Agent ids tagged in the row. */
  tagged: string[];
  depth: number;
  createdAt: Date | string;
}

/**
 * Whether this row, on its own, queues a delivery for the agent.
 *
 * @example wakes({ depth: 0, authorAgentId: null, … }, "a1") // true: an operator post
 * @example wakes({ depth: 3, … }, "a1") // false: deeper than MAX_WAKE_DEPTH
 */
export function wakes(row: Pick<PublicRow, "depth" | "authorAgentId">, agentId: string): boolean {
  return row.depth <= MAX_WAKE_DEPTH && row.authorAgentId !== agentId;
}

/**
 * The depth of a delivery: the shallowest row among those that woke it, so a reply to the
 * operator is depth 1 even when deeper rows arrived in the same delivery. Null when none
 * of the rows wakes the agent (then there is nothing to deliver).
 */
export function deliveryDepth(rows: readonly Pick<PublicRow, "depth" | "authorAgentId">[], agentId: string): number | null {
  let depth: number | null = null;
  for (const row of rows) if (wakes(row, agentId) && (depth === null || row.depth < depth)) depth = row.depth;
  return depth;
}

/** The depth of a post: one more than the delivery that woke the run, 0 outside a group run. */
export function postDepth(runDeliveryDepth: number | null | undefined): number {
  return runDeliveryDepth == null ? 0 : runDeliveryDepth + 1;
}

/** `latestMessage` of the Group Chat info wake (OP-GROUP-2). */
export interface LatestMessage {
  seq: number;
  author: string;
  text: string;
  at: string;
}

/**
 * The facts of a delivery's wake: the latest row that is not the agent's own (its own
 * posts do not call for a reply), and whether any new row tagged it.
 *
 * @param rows the rows after the agent's cursor, through the snapshot seq, in seq order
 */
export function groupChatInfo(rows: readonly PublicRow[], agentId: string): { latestMessage: LatestMessage | null; youWereTagged: boolean } {
  const others = rows.filter((r) => r.authorAgentId !== agentId);
  const latest = others.at(-1) ?? rows.at(-1);
  return {
    latestMessage: latest ? { seq: latest.seq, author: latest.authorName, text: latest.content, at: iso(latest.createdAt) } : null,
    youWereTagged: others.some((r) => r.tagged.includes(agentId)),
  };
}

/**
 * The user row of a group-triggered run (GROUP-002): `Group Chat info: ` then the object as
 * two-space JSON, keys in a fixed order so the text and the prompt hash are stable.
 *
 * @example groupChatInfoMessage({ latestMessage: { seq: 3, author: "operator", text: "hi @Scout", at: "…" }, youWereTagged: true })
 * // Group Chat info: {
 * //   "latestMessage": { … },
 * //   "youWereTagged": true
 * // }
 */
export function groupChatInfoMessage(info: ReturnType<typeof groupChatInfo>): string {
  const latest = info.latestMessage;
  const body = {
    latestMessage: latest ? { seq: latest.seq, author: latest.author, text: latest.text, at: latest.at } : null,
    youWereTagged: info.youWereTagged,
  };
  return `Group Chat info: ${JSON.stringify(body, null, 2)}`;
}

function iso(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
