ALTER TABLE "agents" ADD COLUMN "group_post" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "group_messages" ADD COLUMN "depth" integer DEFAULT 0 NOT NULL;