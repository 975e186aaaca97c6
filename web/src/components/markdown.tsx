import { useEffect, useMemo, useState } from "preact/hooks";
import type { MarkdownEnv } from "../lib/markdown";

type Renderer = (text: string, env?: MarkdownEnv) => string;

/**
 * The renderer with its highlighter is a chunk of its own (about 60 kB gzipped, twice the
 * rest of the console), fetched when the first message shows rather than on every page.
 */
let loaded: Renderer | null = null;
let loading: Promise<Renderer> | null = null;
const loadRenderer = () => (loading ??= import("../lib/markdown").then((m) => (loaded = m.renderMarkdown)));

/**
 * Chat text rendered as Markdown. The HTML comes only from the renderer, which escapes
 * raw HTML and drops unsafe links (lib/markdown.ts), so inserting it is safe; until the
 * renderer has arrived the text shows as it was written.
 */
export function Markdown(props: { text: string; mentions?: string[] }) {
  const [render, setRender] = useState<Renderer | null>(() => loaded);
  useEffect(() => {
    if (!render) void loadRenderer().then((r) => setRender(() => r));
  }, []);
  const names = props.mentions?.join("\u0000") ?? "";
  const html = useMemo(
    () => (render ? render(props.text, props.mentions ? { mentions: props.mentions } : {}) : null),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [render, props.text, names],
  );
  if (html === null) return <div class="md text">{props.text}</div>;
  return <div class="md" dangerouslySetInnerHTML={{ __html: html }} />;
}
