import type { agents } from "../db/schema";
import type { ScriptSnapshotEntry } from "../scripts/types";

type AgentRow = typeof agents.$inferSelect;

/** A tool schema exactly as offered to the model (Chat Completions `tools[]` entry). */
export interface OfferedTool {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/**
 * What generated a coding agent's run (core/tasks/harness.ts, runHarness): the platform's own
 * loop or Claude Code, the version, and the harness's settings (none for the platform).
 */
export interface SnapshotHarness {
  kind: string;
  version: string;
  settings: Record<string, unknown>;
}

/**
 * The immutable snapshot a run takes at creation (EXACT-008..024): model settings,
 * flags, limits, the complete tool schemas offered, secrets by id, name and
 * description only, and the MCP tools by connection (EXACT-023, core/runs/mcp-snapshot.ts).
 * Only the secrets list and a deleted script may change later (EXACT-025); everything
 * else is fixed for the run.
 */
export interface RunSnapshot {
  version: 1;
  model: {
    model: string;
    /** null: the platform's default provider. */
    base_url: string | null;
    api_key_secret: string | null;
    thinking_level: string;
    max_steps: number;
    max_tool_calls: number;
    max_input_tokens: number;
    keep_tool_result_generations: number;
    projection_policy_version: number;
  };
  flags: { browser: boolean; coding: boolean; cli: boolean; scripting: boolean; memory: boolean; group_post: boolean };
  browser_language: string;
  tools: OfferedTool[];
  secrets: Array<{ id: string; name: string; description: string }>;
  mcp: Array<{
    connection_id: string;
    server_id: string;
    slug: string;
    /** `output_schema`: the tool's, when it declared one at discovery; its calls' structuredContent must match it. */
    tools: Array<{ name: string; remote_name: string; output_schema?: Record<string, unknown> }>;
  }>;
  scripts: ScriptSnapshotEntry[];
  /** Coding agents' runs only; runs stored before it was recorded have none. */
  harness?: SnapshotHarness;
}

/**
 * @example buildSnapshot(agentRow, toolSchemas(offeredTools(agentRow))).model.max_tool_calls // 50
 * @example buildSnapshot(agentRow, tools, secrets, scripts, mcp, runHarness(agentRow, "task")).harness?.kind // "claude-code"
 */
export function buildSnapshot(
  agent: AgentRow,
  tools: OfferedTool[],
  secrets: RunSnapshot["secrets"] = [],
  scripts: ScriptSnapshotEntry[] = [],
  mcp: RunSnapshot["mcp"] = [],
  harness?: SnapshotHarness,
): RunSnapshot {
  return {
    version: 1,
    model: {
      model: agent.model,
      base_url: agent.modelBaseUrl,
      api_key_secret: agent.modelApiKeySecret,
      thinking_level: agent.thinkingLevel,
      max_steps: agent.maxSteps,
      max_tool_calls: agent.maxToolCalls,
      max_input_tokens: agent.maxInputTokens,
      keep_tool_result_generations: agent.keepToolResultGenerations,
      projection_policy_version: agent.projectionPolicyVersion,
    },
    flags: { browser: agent.browser, coding: agent.coding, cli: agent.cli, scripting: agent.scripting, memory: agent.memory, group_post: agent.groupPost },
    browser_language: agent.browserLanguage,
    tools,
    secrets,
    mcp,
    scripts,
    ...(harness ? { harness } : {}),
  };
}
