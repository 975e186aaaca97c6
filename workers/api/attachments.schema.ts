import * as z from "zod";
import { IMAGE_TYPES } from "../../core/validation/image-type";

/** An uploaded image, attached to messages by its id. */
export const Attachment = z
  .object({
    id: z.uuid(),
    filename: z.string(),
    mime: z.enum(IMAGE_TYPES).describe("The type its bytes are (not the one the upload declared)"),
    kind: z.literal("image"),
    size: z.int().describe("Bytes"),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "Attachment" });

/**
 * The signed link's query (ATT-005). Any value, or none, is taken: whether the link is valid
 * is the handler's one 403 (a missing part is just an invalid link); only a part given twice
 * is a 422.
 */
export const SignedLinkQuery = z.object({
  expires: z.string().optional().describe("Unix seconds after which the link is refused"),
  signature: z.string().optional().describe("The platform's signature of the id and expiry"),
});
