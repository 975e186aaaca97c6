import { useEffect, useRef, useState } from "preact/hooks";
import { describe } from "../lib/api";
import { attachmentUrl } from "../lib/attachment-urls";

/** An image a row references (metadata.attachments): an upload of the operator or a tool's screenshot. */
export interface ImageRef {
  id: string;
  filename: string;
  mime?: string;
  kind?: string;
}

/** The image refs of a row's metadata, whatever else it holds. */
export function imageRefs(value: unknown): ImageRef[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (a): a is ImageRef => typeof a === "object" && a !== null && typeof a.id === "string" && typeof a.filename === "string" && (a.kind ?? "image") === "image",
  );
}

/** Loads an attachment's object URL; null while it comes, or the reason it did not. */
function useAttachmentUrl(id: string): { url: string | null; error: string | null } {
  const [state, setState] = useState<{ url: string | null; error: string | null }>({ url: null, error: null });
  useEffect(() => {
    let current = true;
    attachmentUrl(id).then(
      (url) => current && setState({ url, error: null }),
      (e: unknown) => current && setState({ url: null, error: describe(e) }),
    );
    return () => {
      current = false;
    };
  }, [id]);
  return state;
}

/**
 * A row's images as thumbnails (UI-009; a browser tool's screenshot); a click opens one
 * large in a dialog that Escape, its Close button or a click anywhere on it closes.
 */
export function AttachmentThumbs(props: { images: ImageRef[]; label: string }) {
  if (props.images.length === 0) return null;
  return (
    <ul class="thumbs" aria-label={props.label}>
      {props.images.map((image) => (
        <li key={image.id}>
          <Thumb image={image} />
        </li>
      ))}
    </ul>
  );
}

function Thumb(props: { image: ImageRef }) {
  const { url, error } = useAttachmentUrl(props.image.id);
  const [open, setOpen] = useState(false);
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const el = dialog.current;
    if (!el) return;
    if (open && !el.open) el.showModal();
    if (!open && el.open) el.close();
  }, [open]);
  const name = props.image.filename;
  if (error) {
    return (
      <span class="thumb thumb-error" data-testid="thumb-error">
        {name}: not shown ({error})
      </span>
    );
  }
  return (
    <>
      <button type="button" class="thumb" aria-label={`Enlarge ${name}`} aria-haspopup="dialog" disabled={!url} onClick={() => setOpen(true)}>
        {url ? <img src={url} alt={name} data-testid="thumb" /> : <span class="muted">loading {name}…</span>}
      </button>
      {open && url && (
        // The dialog's own cancel (Escape) closes it; so does a click anywhere on it.
        // biome-ignore lint/a11y/useKeyWithClickEvents: Escape and the Close button are the keyboard's ways out.
        <dialog ref={dialog} class="lightbox" aria-label={name} onClose={() => setOpen(false)} onClick={() => setOpen(false)}>
          <img src={url} alt={name} />
          <p class="lightbox-bar">
            <span>{name}</span>{" "}
            <button type="button" onClick={() => setOpen(false)}>
              Close
            </button>
          </p>
        </dialog>
      )}
    </>
  );
}
