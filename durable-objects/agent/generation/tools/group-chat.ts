import type { Env } from "../../../../bindings/env";
import { guildObject } from "../../../../bindings/objects";
import type { Refused } from "../../../../bindings/outcome";
import { postDepth } from "../../../../core/group/wake";
import type { RunSession } from "../../state/run-session";

/** group_post's way to the guild's chat; a post from a group run is one hop deeper (the ping-pong guard). */
export function groupChatOf(env: Env, session: RunSession) {
  const { agentId, guildId } = session.scope;
  const depth = postDepth(session.facts.metadata.group_depth as number | undefined);
  return {
    async post(content: string) {
      const posted = await guildObject(env, guildId).post(guildId, { authorKind: "agent", authorAgentId: agentId, content, depth });
      if (!posted.ok) throw new Error((posted as unknown as Refused).message);
      return { seq: posted.row.seq, tagged: posted.tagged_names };
    },
  };
}
