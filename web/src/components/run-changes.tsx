import { useState } from "preact/hooks";
import { api, type RepoChange, type RepoDiff, unwrap } from "../lib/api";
import { type DiffFile, parseDiff } from "../lib/diff-files";
import { useRead } from "../lib/use-read";
import { Notice } from "./notice";

/** Files shown open at first; a diff of more files starts collapsed, each opened on demand. */
const OPEN_FILES = 10;

/**
 * The run's Changes (REPO-019..022, OP-UI-6): per repository the diffstat of its
 * checkpoints, and on demand its diff, produced in the agent's box (which wakes it),
 * one collapsible section per file.
 */
export function RunChanges(props: { runId: string; repos: RepoChange[] }) {
  const files = props.repos.reduce((sum, r) => sum + r.files_changed, 0);
  return (
    <details class="run-changes" data-testid="run-changes" open>
      <summary>
        <strong>Changes</strong> · {props.repos.length} {props.repos.length === 1 ? "repository" : "repositories"}, {files} {files === 1 ? "file" : "files"}
      </summary>
      <ul class="repo-changes">
        {props.repos.map((repo) => (
          <RepoChanges key={repo.name} runId={props.runId} repo={repo} />
        ))}
      </ul>
    </details>
  );
}

function RepoChanges(props: { runId: string; repo: RepoChange }) {
  const { repo } = props;
  const [diff, setDiff] = useState<RepoDiff | null>(null);
  const [shown, setShown] = useState(false);
  const [loading, setLoading] = useState(false);
  const { error, read } = useRead();

  const toggle = async () => {
    if (shown) return setShown(false);
    setShown(true);
    if (diff) return;
    setLoading(true);
    const answer = await read(() =>
      unwrap(api.GET("/api/runs/{id}/changes/{repository}/diff", { params: { path: { id: props.runId, repository: repo.name } } })),
    );
    if (answer) setDiff(answer);
    setLoading(false);
  };

  return (
    <li class="repo-change" data-testid={`repo-${repo.name}`}>
      <div class="repo-line">
        <strong>{repo.name}</strong>
        {repo.branch && <code class="muted">{repo.branch}</code>}
        <span class="diffstat" data-testid="diffstat">
          {repo.files_changed} {repo.files_changed === 1 ? "file" : "files"} <span class="diff-add-count">+{repo.insertions}</span>{" "}
          <span class="diff-remove-count">−{repo.deletions}</span>
        </span>
        <code class="muted" title={`${repo.start_sha}..${repo.end_sha}`}>
          {repo.start_sha.slice(0, 7)}..{repo.end_sha.slice(0, 7)}
        </code>
        <button type="button" onClick={toggle} aria-expanded={shown}>
          {shown ? "Hide diff" : "Show diff"}
        </button>
      </div>
      {shown && loading && <p aria-busy="true">Loading the diff from the agent's sandbox…</p>}
      {shown && error && (
        <Notice kind="error" testId="diff-error">
          Could not load the diff of {repo.name}: {error}
        </Notice>
      )}
      {shown && diff && <DiffView diff={diff} />}
    </li>
  );
}

function DiffView(props: { diff: RepoDiff }) {
  const files = parseDiff(props.diff.diff);
  return (
    <div class="diff-view" data-testid="diff-view">
      {props.diff.truncated && (
        <Notice kind="warning" testId="diff-truncated">
          This diff is longer than 256 KiB: it is cut, and the last file shown may be incomplete.
        </Notice>
      )}
      {files.length === 0 && <p class="muted">No differences between the run's start and end.</p>}
      {files.map((file, i) => (
        <DiffFileSection key={`${i}:${file.path}`} file={file} open={files.length <= OPEN_FILES} />
      ))}
    </div>
  );
}

const CHANGE_LABEL: Record<DiffFile["change"], string> = { added: "added", deleted: "deleted", renamed: "renamed", modified: "modified" };

function DiffFileSection(props: { file: DiffFile; open: boolean }) {
  const { file } = props;
  return (
    <details class="diff-file" open={props.open} data-testid="diff-file">
      <summary>
        <code>{file.from ? `${file.from} → ${file.path}` : file.path}</code> <span class={`badge change-${file.change}`}>{CHANGE_LABEL[file.change]}</span>{" "}
        <span class="diff-add-count">+{file.additions}</span> <span class="diff-remove-count">−{file.deletions}</span>
      </summary>
      {file.binary ? (
        <p class="muted">Binary file: its content is not shown.</p>
      ) : (
        <pre class="diff-lines">
          {file.lines.map((line, i) => (
            <span key={i} class={`diff-${line.kind}`}>
              {line.text}
            </span>
          ))}
        </pre>
      )}
    </details>
  );
}
