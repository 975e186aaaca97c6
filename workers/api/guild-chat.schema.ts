import * as z from "zod";
import { GROUP_POST_MAX } from "../../core/tools/group";
import { idInput } from "../../core/validation/fields";
import { GroupMessage } from "../../core/validation/group-chat";
import { MAX_SEQ, queryInt } from "../http/query.schema";

/**
 * Body of `POST /api/guilds/:id/chat`: the operator's public post. `@Name` mentions in the
 * content tag agents too; `tagged` names agents by id.
 *
 * @example GroupPostBody.parse({ content: "@Scout please check the build" })
 */
export const GroupPostBody = z
  .strictObject({
    content: z.string().trim().min(1).max(GROUP_POST_MAX),
    tagged: z.array(idInput()).max(50).default([]).describe("Agents to tag by id, besides @Name mentions in the content"),
  })
  .meta({ id: "GroupPost" });

/** Query of `GET /api/guilds/:id/chat`: a page after or before a seq, or the latest rows. */
export const ChatQuery = z
  .strictObject({
    after_seq: queryInt(0, MAX_SEQ).optional().describe("Rows after this seq, oldest first"),
    before_seq: queryInt(1, MAX_SEQ).optional().describe("Rows before this seq (an older page)"),
    limit: queryInt(1, 500, 50),
  })
  .refine((q) => q.after_seq === undefined || q.before_seq === undefined, { message: "give after_seq or before_seq, not both", path: ["before_seq"] });

/** A page of the chat in seq order; has_more: older (or newer, after after_seq) rows remain. */
export const GroupMessagePage = z.object({ data: z.array(GroupMessage), has_more: z.boolean() }).meta({ id: "GroupMessagePage" });
