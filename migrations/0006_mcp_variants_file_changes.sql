CREATE TABLE "mcp_connections" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organisation_id" uuid NOT NULL,
	"slug" text NOT NULL,
	"url" text NOT NULL,
	"preset" text,
	"transport" text,
	"auth_kind" text DEFAULT 'none' NOT NULL,
	"org_wide" boolean DEFAULT false NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"last_error" text,
	"server_info" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"instructions" text,
	"oauth" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"credential_ciphertext" text,
	"credential_iv" text,
	"credential_key_version" text,
	"discovered_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mcp_connections_organisation_slug_unique" UNIQUE("organisation_id","slug"),
	CONSTRAINT "mcp_connections_auth_kind_check" CHECK ("mcp_connections"."auth_kind" in ('none', 'bearer', 'oauth')),
	CONSTRAINT "mcp_connections_status_check" CHECK ("mcp_connections"."status" in ('pending', 'ready', 'needs_auth', 'error'))
);
--> statement-breakpoint
CREATE TABLE "mcp_grants" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"connection_id" uuid NOT NULL,
	"guild_id" uuid,
	"agent_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mcp_grants_connection_guild_agent_unique" UNIQUE NULLS NOT DISTINCT("connection_id","guild_id","agent_id"),
	CONSTRAINT "mcp_grants_target_check" CHECK (("mcp_grants"."guild_id" is null) <> ("mcp_grants"."agent_id" is null))
);
--> statement-breakpoint
CREATE TABLE "mcp_oauth_states" (
	"nonce" text PRIMARY KEY NOT NULL,
	"connection_id" uuid NOT NULL,
	"verifier_ciphertext" text NOT NULL,
	"verifier_iv" text NOT NULL,
	"verifier_key_version" text NOT NULL,
	"redirect_uri" text NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mcp_tools" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"connection_id" uuid NOT NULL,
	"organisation_id" uuid NOT NULL,
	"name" text NOT NULL,
	"remote_name" text NOT NULL,
	"title" text,
	"description" text DEFAULT '' NOT NULL,
	"input_schema" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"output_schema" jsonb,
	"annotations" jsonb,
	"enabled" boolean DEFAULT true NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mcp_tools_connection_remote_unique" UNIQUE("connection_id","remote_name"),
	CONSTRAINT "mcp_tools_organisation_name_unique" UNIQUE("organisation_id","name")
);
--> statement-breakpoint
CREATE TABLE "prompt_variants" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organisation_id" uuid NOT NULL,
	"run_id" uuid NOT NULL,
	"message_seq" integer NOT NULL,
	"batch_id" uuid NOT NULL,
	"requested_by" uuid,
	"settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"answer" jsonb,
	"error" jsonb,
	"input_tokens" integer DEFAULT 0 NOT NULL,
	"output_tokens" integer DEFAULT 0 NOT NULL,
	"cached_input_tokens" integer DEFAULT 0 NOT NULL,
	"reasoning_tokens" integer DEFAULT 0 NOT NULL,
	"cost_usd" numeric(14, 6) DEFAULT '0' NOT NULL,
	"latency_ms" integer,
	"prompt_hash" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp (3) with time zone,
	CONSTRAINT "prompt_variants_status_check" CHECK ("prompt_variants"."status" in ('pending', 'completed', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "file_changes" ADD COLUMN "repository" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "file_changes" ADD COLUMN "old_path" text;--> statement-breakpoint
ALTER TABLE "file_changes" ADD COLUMN "insertions" integer;--> statement-breakpoint
ALTER TABLE "file_changes" ADD COLUMN "deletions" integer;--> statement-breakpoint
ALTER TABLE "mcp_connections" ADD CONSTRAINT "mcp_connections_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_grants" ADD CONSTRAINT "mcp_grants_connection_id_mcp_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."mcp_connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_grants" ADD CONSTRAINT "mcp_grants_guild_id_guilds_id_fk" FOREIGN KEY ("guild_id") REFERENCES "public"."guilds"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_grants" ADD CONSTRAINT "mcp_grants_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_oauth_states" ADD CONSTRAINT "mcp_oauth_states_connection_id_mcp_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."mcp_connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_tools" ADD CONSTRAINT "mcp_tools_connection_id_mcp_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."mcp_connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_tools" ADD CONSTRAINT "mcp_tools_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prompt_variants" ADD CONSTRAINT "prompt_variants_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prompt_variants" ADD CONSTRAINT "prompt_variants_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mcp_grants_connection_idx" ON "mcp_grants" USING btree ("connection_id");--> statement-breakpoint
CREATE INDEX "mcp_grants_guild_idx" ON "mcp_grants" USING btree ("guild_id");--> statement-breakpoint
CREATE INDEX "mcp_grants_agent_idx" ON "mcp_grants" USING btree ("agent_id");--> statement-breakpoint
CREATE INDEX "mcp_oauth_states_expires_idx" ON "mcp_oauth_states" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "prompt_variants_run_seq_idx" ON "prompt_variants" USING btree ("run_id","message_seq","created_at");--> statement-breakpoint
CREATE INDEX "prompt_variants_batch_idx" ON "prompt_variants" USING btree ("batch_id");--> statement-breakpoint
CREATE INDEX "file_changes_run_repository_idx" ON "file_changes" USING btree ("run_id","repository");