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
