import { useEffect, useRef, useState } from "preact/hooks";
import { type AttachmentRef, describe } from "../lib/api";
import { attachmentUrl } from "../lib/attachment-urls";

/** The images among a row's attachments (an operator's uploads, a tool's screenshot) (a file of another kind is named, not shown). */
export function imageRefs(attachments: AttachmentRef[] | undefined): AttachmentRef[] {
  return (attachments ?? []).filter((a) => (a.kind ?? "image") === "image");
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
export function AttachmentThumbs(props: { images: AttachmentRef[]; label: string }) {
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

function Thumb(props: { image: AttachmentRef }) {
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
