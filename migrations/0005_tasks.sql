CREATE TABLE "task_messages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"task_id" uuid NOT NULL,
	"content" text NOT NULL,
	"delivered_at" timestamp (3) with time zone,
	"delivered_run_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "task_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"task_id" uuid NOT NULL,
	"run_id" uuid NOT NULL,
	"outcome" text,
	"connected_at" timestamp (3) with time zone,
	"ended_at" timestamp (3) with time zone,
	"workspace" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"report" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "task_runs_run_id_unique" UNIQUE("run_id"),
	CONSTRAINT "task_runs_outcome_check" CHECK ("task_runs"."outcome" in ('completed', 'end_turn', 'blocked', 'rate_limited', 'limit_reached', 'sandbox_lost', 'connect_timeout', 'provisioning_failed', 'cancelled', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "tasks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organisation_id" uuid NOT NULL,
	"guild_id" uuid NOT NULL,
	"agent_id" uuid NOT NULL,
	"repository_id" uuid NOT NULL,
	"number" integer NOT NULL,
	"key" text NOT NULL,
	"title" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"base_branch" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"allow_force_push" boolean DEFAULT false NOT NULL,
	"resume_at" timestamp (3) with time zone,
	"queued_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"auto_resumes" integer DEFAULT 0 NOT NULL,
	"pull_request_number" integer,
	"pull_request_url" text,
	"last_run_ended_at" timestamp (3) with time zone,
	"closed_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tasks_repository_number_unique" UNIQUE("repository_id","number"),
	CONSTRAINT "tasks_status_check" CHECK ("tasks"."status" in ('queued', 'running', 'waiting', 'blocked', 'rate_limited', 'limit_reached', 'in_review', 'completed', 'cancelled', 'failed')),
	CONSTRAINT "tasks_number_check" CHECK ("tasks"."number" > 0)
);
--> statement-breakpoint
ALTER TABLE "runs" DROP CONSTRAINT "runs_kind_check";--> statement-breakpoint
ALTER TABLE "guild_repositories" ADD COLUMN "task_counter" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "organisations" ADD COLUMN "task_settings" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "task_messages" ADD CONSTRAINT "task_messages_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_messages" ADD CONSTRAINT "task_messages_delivered_run_id_runs_id_fk" FOREIGN KEY ("delivered_run_id") REFERENCES "public"."runs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_runs" ADD CONSTRAINT "task_runs_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_runs" ADD CONSTRAINT "task_runs_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_guild_id_guilds_id_fk" FOREIGN KEY ("guild_id") REFERENCES "public"."guilds"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_repository_id_guild_repositories_id_fk" FOREIGN KEY ("repository_id") REFERENCES "public"."guild_repositories"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "task_messages_task_created_idx" ON "task_messages" USING btree ("task_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "task_runs_one_active" ON "task_runs" USING btree ("task_id") WHERE "task_runs"."outcome" IS NULL;--> statement-breakpoint
CREATE INDEX "task_runs_task_created_idx" ON "task_runs" USING btree ("task_id","created_at");--> statement-breakpoint
CREATE INDEX "tasks_organisation_status_idx" ON "tasks" USING btree ("organisation_id","status");--> statement-breakpoint
CREATE INDEX "tasks_guild_created_idx" ON "tasks" USING btree ("guild_id","created_at");--> statement-breakpoint
ALTER TABLE "runs" ADD CONSTRAINT "runs_kind_check" CHECK ("runs"."kind" in ('direct', 'group', 'schedule', 'task'));