ALTER TABLE "api_tokens" ADD COLUMN "expires_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "organisations" ADD COLUMN "spend_ceiling_usd" numeric(14, 6);