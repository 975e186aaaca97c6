CREATE TABLE "global_usage_shards" (
	"scope" text DEFAULT 'global' NOT NULL,
	"shard" smallint NOT NULL,
	"input_tokens" bigint DEFAULT 0 NOT NULL,
	"output_tokens" bigint DEFAULT 0 NOT NULL,
	"cached_input_tokens" bigint DEFAULT 0 NOT NULL,
	"reasoning_tokens" bigint DEFAULT 0 NOT NULL,
	"cost_usd" numeric(14, 6) DEFAULT '0' NOT NULL,
	"calls" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "global_usage_shards_scope_shard_pk" PRIMARY KEY("scope","shard")
);
--> statement-breakpoint
CREATE TABLE "guild_usage_shards" (
	"guild_id" uuid NOT NULL,
	"shard" smallint NOT NULL,
	"input_tokens" bigint DEFAULT 0 NOT NULL,
	"output_tokens" bigint DEFAULT 0 NOT NULL,
	"cached_input_tokens" bigint DEFAULT 0 NOT NULL,
	"reasoning_tokens" bigint DEFAULT 0 NOT NULL,
	"cost_usd" numeric(14, 6) DEFAULT '0' NOT NULL,
	"calls" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "guild_usage_shards_guild_id_shard_pk" PRIMARY KEY("guild_id","shard")
);
--> statement-breakpoint
CREATE TABLE "org_monthly_usage_shards" (
	"organisation_id" uuid NOT NULL,
	"month" char(7) NOT NULL,
	"shard" smallint NOT NULL,
	"input_tokens" bigint DEFAULT 0 NOT NULL,
	"output_tokens" bigint DEFAULT 0 NOT NULL,
	"cached_input_tokens" bigint DEFAULT 0 NOT NULL,
	"reasoning_tokens" bigint DEFAULT 0 NOT NULL,
	"cost_usd" numeric(14, 6) DEFAULT '0' NOT NULL,
	"calls" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "org_monthly_usage_shards_organisation_id_month_shard_pk" PRIMARY KEY("organisation_id","month","shard")
);
--> statement-breakpoint
CREATE TABLE "organisation_usage_shards" (
	"organisation_id" uuid NOT NULL,
	"shard" smallint NOT NULL,
	"input_tokens" bigint DEFAULT 0 NOT NULL,
	"output_tokens" bigint DEFAULT 0 NOT NULL,
	"cached_input_tokens" bigint DEFAULT 0 NOT NULL,
	"reasoning_tokens" bigint DEFAULT 0 NOT NULL,
	"cost_usd" numeric(14, 6) DEFAULT '0' NOT NULL,
	"calls" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "organisation_usage_shards_organisation_id_shard_pk" PRIMARY KEY("organisation_id","shard")
);
--> statement-breakpoint
ALTER TABLE "guild_usage_shards" ADD CONSTRAINT "guild_usage_shards_guild_id_guilds_id_fk" FOREIGN KEY ("guild_id") REFERENCES "public"."guilds"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "org_monthly_usage_shards" ADD CONSTRAINT "org_monthly_usage_shards_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "organisation_usage_shards" ADD CONSTRAINT "organisation_usage_shards_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE VIEW "public"."global_usage_totals" AS (select scope, sum(input_tokens)::bigint as input_tokens, sum(output_tokens)::bigint as output_tokens,
    sum(cached_input_tokens)::bigint as cached_input_tokens, sum(reasoning_tokens)::bigint as reasoning_tokens,
    sum(cost_usd)::numeric(14, 6) as cost_usd, sum(calls)::integer as calls, max(updated_at) as updated_at
  from (select scope, input_tokens, output_tokens, cached_input_tokens, reasoning_tokens, cost_usd, calls, updated_at from global_usage union all select scope, input_tokens, output_tokens, cached_input_tokens, reasoning_tokens, cost_usd, calls, updated_at from global_usage_shards) rows
  group by scope);--> statement-breakpoint
CREATE VIEW "public"."guild_usage_totals" AS (select guild_id, sum(input_tokens)::bigint as input_tokens, sum(output_tokens)::bigint as output_tokens,
    sum(cached_input_tokens)::bigint as cached_input_tokens, sum(reasoning_tokens)::bigint as reasoning_tokens,
    sum(cost_usd)::numeric(14, 6) as cost_usd, sum(calls)::integer as calls, max(updated_at) as updated_at
  from (select guild_id, input_tokens, output_tokens, cached_input_tokens, reasoning_tokens, cost_usd, calls, updated_at from guild_usage union all select guild_id, input_tokens, output_tokens, cached_input_tokens, reasoning_tokens, cost_usd, calls, updated_at from guild_usage_shards) rows
  group by guild_id);--> statement-breakpoint
CREATE VIEW "public"."org_monthly_usage_totals" AS (select organisation_id, month, sum(input_tokens)::bigint as input_tokens, sum(output_tokens)::bigint as output_tokens,
    sum(cached_input_tokens)::bigint as cached_input_tokens, sum(reasoning_tokens)::bigint as reasoning_tokens,
    sum(cost_usd)::numeric(14, 6) as cost_usd, sum(calls)::integer as calls, max(updated_at) as updated_at
  from (select organisation_id, month, input_tokens, output_tokens, cached_input_tokens, reasoning_tokens, cost_usd, calls, updated_at from org_monthly_usage union all select organisation_id, month, input_tokens, output_tokens, cached_input_tokens, reasoning_tokens, cost_usd, calls, updated_at from org_monthly_usage_shards) rows
  group by organisation_id, month);--> statement-breakpoint
CREATE VIEW "public"."organisation_usage_totals" AS (select organisation_id, sum(input_tokens)::bigint as input_tokens, sum(output_tokens)::bigint as output_tokens,
    sum(cached_input_tokens)::bigint as cached_input_tokens, sum(reasoning_tokens)::bigint as reasoning_tokens,
    sum(cost_usd)::numeric(14, 6) as cost_usd, sum(calls)::integer as calls, max(updated_at) as updated_at
  from (select organisation_id, input_tokens, output_tokens, cached_input_tokens, reasoning_tokens, cost_usd, calls, updated_at from organisation_usage union all select organisation_id, input_tokens, output_tokens, cached_input_tokens, reasoning_tokens, cost_usd, calls, updated_at from organisation_usage_shards) rows
  group by organisation_id);