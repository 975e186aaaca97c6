/**
 * guilds-code: the git side of a coding agent's generation, run in the box by the platform
 * (REPO-005..018, REPO-022), and a task's harness turn (TASK-015, TASK-016, TASK-022). Every
 * answer is one JSON document on stdout, except where a command says otherwise.
 *
 *   guilds-code identity --name <name> --email <email>
 *   guilds-code clone --url <url> --dir <name> [--timeout-s 600]     exit 3 on failure
 *   guilds-code checkpoint --run <id> --kind start|end
 *   guilds-code diff --run <id> --repo <name> [--max-bytes 262144]   exit 4 without checkpoints
 *   guilds-code credential get                                        (git-credential-guilds)
 *   guilds-code task-prepare --dir <abs> --remote <url> --branch <b> --base <b> --wip <b> [--name <n> --email <e>]
 *   guilds-code task-push --dir <abs> --branch <b> --base <b>
 *   guilds-code task-finalize --dir <abs> --branch <b> --base <b> --wip <b>
 *     (exit 3 with {"error":"task.git","step","reason"} when git fails; a refused push is an answer)
 *   guilds-code harness-turn --session <uuid> --resume true|false --prompt-file <abs> --base-url <url>
 *       [--fresh-prompt-file <abs>] [--report-file <abs>] [--system-file <abs>] [--model <m>]
 *       [--max-turns <n>] [--permission-mode bypassPermissions|acceptEdits|default|plan]
 *       [--allowed-tools <csv>] [--disallowed-tools <csv>] [--extra-args <JSON array of strings>]
 *     Claude Code on the prompt in /data/workspace (harness-turn.ts): its stream-json lines as
 *     they come, then {"harness_turn":{"session_id","resumed","fresh_reason","exit_code",
 *     "signal","result"}} (also written to the report file); exit 0 when claude finished well,
 *     else 3, also with {"error":"harness.setup","message"} when the workspace, the credential
 *     or a file is missing. SIGTERM stops claude and all it started within 5 s.
 *   guilds-code mcp     a stdio MCP server with complete_task and ask_question (until stdin closes)
 *
 * Bad arguments exit 2 with {"error":"usage","message"}; anything unexpected exits 1 with
 * {"error":"internal","message"}.
 */
import { CLONE_TIMEOUT_S, DIFF_MAX_BYTES } from "../../core/repos/types";
import { checkpointAll, RUN_ID } from "./checkpoint";
import { clone, DIR_NAME } from "./clone";
import { credentialHelper } from "./credential";
import { runDiff } from "./diff";
import { gitText } from "./git";
import { harnessTurnCommand } from "./harness-turn";
import { serveMcp } from "./mcp";
import { ABSOLUTE_DIR, BRANCH_NAME, REMOTE_URL } from "./task-args";
import { TaskGitError } from "./task-git";
import { taskPrepare } from "./task-prepare";
import { taskFinalize, taskPush } from "./task-push";
import { ONE_LINE, optional, parseFlags, positiveInt, required, UsageError } from "./usage";

function taskFlags(rest: string[], known: string[]) {
  const flags = parseFlags(rest, known);
  return {
    dir: required(flags, "dir", ABSOLUTE_DIR),
    branch: required(flags, "branch", BRANCH_NAME),
    base: required(flags, "base", BRANCH_NAME),
    wip: known.includes("wip") ? required(flags, "wip", BRANCH_NAME) : "",
    remote: known.includes("remote") ? required(flags, "remote", REMOTE_URL) : "",
    name: optional(flags, "name", ONE_LINE),
    email: optional(flags, "email", ONE_LINE),
  };
}

/** A task command's answer, or exit 3 with the git step that failed. */
async function taskAnswer(run: () => Promise<unknown>): Promise<number> {
  try {
    print(await run());
    return 0;
  } catch (error) {
    if (!(error instanceof TaskGitError)) throw error;
    print({ error: "task.git", step: error.step, reason: error.reason });
    return 3;
  }
}

const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "identity": {
      const flags = parseFlags(rest, ["name", "email"]);
      const name = required(flags, "name", ONE_LINE);
      const email = required(flags, "email", ONE_LINE);
      await gitText(["config", "--global", "user.name", name]);
      await gitText(["config", "--global", "user.email", email]);
      print({ name, email });
      return 0;
    }
    case "clone": {
      const flags = parseFlags(rest, ["url", "dir", "timeout-s"]);
      const result = await clone(required(flags, "url"), required(flags, "dir", DIR_NAME), positiveInt(flags, "timeout-s", CLONE_TIMEOUT_S));
      print(result);
      return "error" in result ? 3 : 0;
    }
    case "checkpoint": {
      const flags = parseFlags(rest, ["run", "kind"]);
      const run = required(flags, "run", RUN_ID);
      const kind = required(flags, "kind", /^(start|end)$/) as "start" | "end";
      print(await checkpointAll(run, kind));
      return 0;
    }
    case "diff": {
      const flags = parseFlags(rest, ["run", "repo", "max-bytes"]);
      const result = await runDiff(required(flags, "run", RUN_ID), required(flags, "repo", DIR_NAME), positiveInt(flags, "max-bytes", DIFF_MAX_BYTES));
      print(result);
      return "error" in result ? 4 : 0;
    }
    case "credential":
      return credentialHelper(rest[0]);
    case "task-prepare": {
      const flags = taskFlags(rest, ["dir", "remote", "branch", "base", "wip", "name", "email"]);
      return taskAnswer(() => taskPrepare(flags));
    }
    case "task-push": {
      const flags = taskFlags(rest, ["dir", "branch", "base"]);
      return taskAnswer(() => taskPush(flags));
    }
    case "task-finalize": {
      const flags = taskFlags(rest, ["dir", "branch", "base", "wip"]);
      return taskAnswer(() => taskFinalize(flags));
    }
    case "harness-turn":
      return harnessTurnCommand(rest);
    case "mcp":
      parseFlags(rest, []);
      return serveMcp();
    default:
      throw new UsageError(
        `unknown command ${command ?? "(none)"}; expected identity, clone, checkpoint, diff, credential, task-prepare, task-push, task-finalize, harness-turn or mcp`,
      );
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: Error) => {
    const usage = error instanceof UsageError;
    print({ error: usage ? "usage" : "internal", message: error.message });
    process.exitCode = usage ? 2 : 1;
  },
);
