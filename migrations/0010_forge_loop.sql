CREATE TABLE "forge_deliveries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"delivery_id" text NOT NULL,
	"body_sha256" text NOT NULL,
	"organisation_id" uuid,
	"installation_id" bigint,
	"event" text NOT NULL,
	"action" text,
	"repository" text,
	"sender" text,
	"outcome" text DEFAULT 'pending' NOT NULL,
	"detail" text,
	"error" text,
	"event_data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"received_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"handled_at" timestamp (3) with time zone,
	CONSTRAINT "forge_deliveries_delivery_unique" UNIQUE("delivery_id"),
	CONSTRAINT "forge_deliveries_body_unique" UNIQUE("body_sha256"),
	CONSTRAINT "forge_deliveries_outcome_check" CHECK ("forge_deliveries"."outcome" in ('pending', 'handling', 'accepted', 'ignored', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "guild_repositories" ADD COLUMN "task_agent_id" uuid;--> statement-breakpoint
ALTER TABLE "guild_repositories" ADD COLUMN "trigger_label" text DEFAULT 'agent' NOT NULL;--> statement-breakpoint
ALTER TABLE "guild_repositories" ADD COLUMN "checks_seen_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "issue_number" integer;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "issue_url" text;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "checks" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "awaiting_checks" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "max_cost_usd" numeric(14, 6);--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "attempts" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "parent_task_id" uuid;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "attempt" integer;--> statement-breakpoint
ALTER TABLE "forge_deliveries" ADD CONSTRAINT "forge_deliveries_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "forge_deliveries_organisation_received_idx" ON "forge_deliveries" USING btree ("organisation_id","received_at");--> statement-breakpoint
CREATE INDEX "forge_deliveries_pending_idx" ON "forge_deliveries" USING btree ("organisation_id","received_at") WHERE "forge_deliveries"."outcome" in ('pending', 'handling');--> statement-breakpoint
ALTER TABLE "guild_repositories" ADD CONSTRAINT "guild_repositories_task_agent_id_agents_id_fk" FOREIGN KEY ("task_agent_id") REFERENCES "public"."agents"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_parent_task_id_tasks_id_fk" FOREIGN KEY ("parent_task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "tasks_repository_issue_unique" ON "tasks" USING btree ("repository_id","issue_number") WHERE "tasks"."issue_number" IS NOT NULL AND "tasks"."parent_task_id" IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "tasks_parent_attempt_unique" ON "tasks" USING btree ("parent_task_id","attempt") WHERE "tasks"."parent_task_id" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_attempts_check" CHECK ("tasks"."attempts" between 1 and 4);