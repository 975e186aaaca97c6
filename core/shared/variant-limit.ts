/**
 * Variants one what-if request may ask for: each is a full model call, made side by side.
 * The API refuses more and the console offers no more, so both read the one number here.
 */
export const MAX_VARIANTS_PER_REQUEST = 8;
