/**
 * What the agent object answers over RPC. Refusals are values, not exceptions: a
 * rejected RPC loses its error type on the way, and the Worker must map each refusal
 * to a precise status and code.
 */
export type Outcome<T> = ({ ok: true } & T) | Refused;

export interface Refused {
  ok: false;
  status: 400 | 404 | 409 | 422 | 503;
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

export const refuse = (status: Refused["status"], code: string, message: string, details?: Record<string, unknown>): Refused => ({
  ok: false,
  status,
  code,
  message,
  ...(details ? { details } : {}),
});

export const busy = (runId: string) => refuse(409, "agent.busy", "The agent is generating; wait for it to finish or cancel it", { run_id: runId });
