CREATE TABLE "github_claim_states" (
	"nonce" text PRIMARY KEY NOT NULL,
	"organisation_id" uuid NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "github_claim_states" ADD CONSTRAINT "github_claim_states_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "github_claim_states_expires_idx" ON "github_claim_states" USING btree ("expires_at");--> statement-breakpoint
-- Connections made before claims were checked proved nothing: each is disconnected (its repositories stay) until its organisation claims the installation.
UPDATE "github_connections" SET "disconnected_at" = now() WHERE "disconnected_at" IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "github_connections_installation_held_unique" ON "github_connections" USING btree ("installation_id") WHERE "github_connections"."disconnected_at" IS NULL;