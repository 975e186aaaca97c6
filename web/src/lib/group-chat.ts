import type { ChatGap, ChatPage, Delivery, GroupMessage, GuildEvent } from "./api-types";
import { decodeEvent, mergeRows, type SseEvent } from "./sse";

export type { ChatGap, Delivery };

/**
 * The guild's group chat as the console holds it, free of I/O so it is unit-tested:
 * messages merged by seq (history pages, posts and the live stream overlap, and each
 * seq shows once) and the latest delivery per agent (who is reading the chat now).
 */

export interface ChatState {
  messages: GroupMessage[];
  /** The latest delivery of each agent, in order of arrival. */
  deliveries: Delivery[];
}

export const emptyChat = (): ChatState => ({ messages: [], deliveries: [] });

/** Messages from any source merged in: seq order, each seq once. */
export function withMessages(state: ChatState, incoming: GroupMessage[]): ChatState {
  const messages = mergeRows(state.messages, incoming);
  return messages === state.messages ? state : { ...state, messages };
}

/**
 * A delivery recorded as its agent's latest. A `completed` for another run than the
 * one held (a late event of an older run) leaves the newer one as it is.
 */
export function withDelivery(state: ChatState, delivery: Delivery): ChatState {
  const held = state.deliveries.find((d) => d.agent_id === delivery.agent_id);
  if (held && delivery.state === "completed" && held.run_id !== delivery.run_id && held.state === "started") return state;
  return { ...state, deliveries: [...state.deliveries.filter((d) => d.agent_id !== delivery.agent_id), delivery] };
}

/** Marks the given runs as done reading (their `completed` event was missed while offline). */
export function settleRuns(state: ChatState, runIds: string[]): ChatState {
  if (!state.deliveries.some((d) => d.state === "started" && runIds.includes(d.run_id))) return state;
  return { ...state, deliveries: state.deliveries.map((d) => (d.state === "started" && runIds.includes(d.run_id) ? { ...d, state: "completed" } : d)) };
}

/** The deliveries still in progress: the agents reading the chat right now. */
export const reading = (state: ChatState): Delivery[] => state.deliveries.filter((d) => d.state === "started");

/**
 * Applies one event of GET /api/guilds/:id/events: `message` rows, `delivery` changes and
 * the deliveries in progress a `status` names. Unknown events or unreadable data leave
 * the state as it was.
 *
 * @example state = applyChatEvent(state, { event: "message", id: "7", data: '{"seq":7,...}' })
 */
export function applyChatEvent(state: ChatState, event: SseEvent): ChatState {
  const decoded = decodeEvent<GuildEvent>(event);
  if (!decoded) return state;
  switch (decoded.event) {
    case "message":
      return typeof decoded.data.seq === "number" ? withMessages(state, [decoded.data]) : state;
    case "delivery":
      return withDeliveryData(state, decoded.data);
    case "status":
      // A (re)connect's status names the deliveries in progress, so a page opened mid-read shows them.
      return Array.isArray(decoded.data.reading) ? decoded.data.reading.reduce(withDeliveryData, state) : state;
    default:
      return state;
  }
}

/**
 * The gap a `gap` event names: the subscriber was further behind than the replay goes, so
 * the rows after `after_seq` and before `resumes_at_seq` are to be read with GET /chat.
 * Null for any other event, unreadable data, or a gap that skipped nothing.
 */
export function gapOf(event: SseEvent): ChatGap | null {
  const decoded = decodeEvent<GuildEvent>(event);
  if (decoded?.event !== "gap") return null;
  const { after_seq, resumes_at_seq } = decoded.data;
  return typeof after_seq === "number" && typeof resumes_at_seq === "number" && resumes_at_seq > after_seq + 1 ? { after_seq, resumes_at_seq } : null;
}

/**
 * Where the next `before_seq` page of a gap starts, after a page read back from
 * `resumes_at_seq`; null once the gap is filled.
 * @example nextGapPage({ after_seq: 5, resumes_at_seq: 400 }, [200..399]) // 200
 */
export function nextGapPage(gap: ChatGap, page: ChatPage): number | null {
  const oldest = page.data[0]?.seq;
  return page.has_more && oldest !== undefined && oldest > gap.after_seq + 1 ? oldest : null;
}

/** A delivery event's data, checked (the state keeps it); anything malformed leaves the state as it was. */
function withDeliveryData(state: ChatState, data: Delivery): ChatState {
  const { agent_id, agent_name, run_id, through_seq, state: phase } = data;
  if (typeof agent_id !== "string" || typeof run_id !== "string" || (phase !== "started" && phase !== "completed")) return state;
  return withDelivery(state, {
    agent_id,
    agent_name: typeof agent_name === "string" ? agent_name : agent_id,
    run_id,
    through_seq: typeof through_seq === "number" ? through_seq : 0,
    state: phase,
  });
}
