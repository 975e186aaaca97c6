import { useEffect, useRef, useState } from "preact/hooks";
import { api, describe, unwrap } from "../lib/api";
import { ACCEPTED_IMAGES, imagesLeft, MAX_IMAGES, type PendingImage, refusal } from "../lib/attachments";

/** Uploads one image (POST /api/attachments, multipart field `file`) and answers its id. */
async function upload(file: File): Promise<string> {
  const form = new FormData();
  form.append("file", file);
  // openapi-fetch sends a FormData body as it is, with the browser's multipart boundary.
  return (await unwrap(api.POST("/api/attachments", { body: form as unknown as { file: string } }))).id;
}

/**
 * The composer's images (UI-009), chosen with the button, dropped on the composer or pasted:
 * each accepted file is uploaded at once, so the message later references stored ids only;
 * a file of another type, too large, or past the 8 a message takes is refused at once, and
 * one the API refuses shows its reason. Each keeps a local preview until it is removed or sent.
 */
export function useImageAttachments() {
  const [images, setImages] = useState<PendingImage[]>([]);
  // The chips as of the last change, so two drops before a re-render share the 8 places.
  const latest = useRef(images);
  latest.current = images;
  const next = useRef(0);
  // The previews still shown, to free them when the composer goes.
  const previews = useRef(new Map<string, string>());
  useEffect(
    () => () => {
      for (const url of previews.current.values()) URL.revokeObjectURL(url);
    },
    [],
  );
  const free = (keys: Iterable<string>) => {
    for (const key of keys) {
      const url = previews.current.get(key);
      if (url) URL.revokeObjectURL(url);
      previews.current.delete(key);
    }
  };
  // A late upload answer only updates its own chip, and none once the chip was removed or sent.
  const settle = (key: string, change: (image: PendingImage) => PendingImage) =>
    setImages((all) => all.map((i) => (i.key === key && i.state === "uploading" ? change(i) : i)));

  const add = (files: File[]) => {
    if (files.length === 0) return;
    let room = imagesLeft(latest.current);
    const chosen = files.map((file): { file: File; image: PendingImage } => {
      const key = String(next.current++);
      const base = { key, filename: file.name || "pasted image" };
      const refused = refusal(file) ?? (room <= 0 ? `a message takes at most ${MAX_IMAGES} images` : null);
      if (refused) return { file, image: { ...base, state: "failed", error: refused } };
      room--;
      const preview = URL.createObjectURL(file);
      previews.current.set(key, preview);
      return { file, image: { ...base, preview, state: "uploading" } };
    });
    latest.current = [...latest.current, ...chosen.map((c) => c.image)];
    setImages((all) => [...all, ...chosen.map((c) => c.image)]);
    for (const { file, image } of chosen) {
      if (image.state !== "uploading") continue;
      upload(file).then(
        (id) => settle(image.key, (i) => ({ ...i, state: "ready", id })),
        (error: unknown) => settle(image.key, (i) => ({ ...i, state: "failed", error: describe(error) })),
      );
    }
  };
  const remove = (key: string) => {
    free([key]);
    setImages((all) => all.filter((i) => i.key !== key));
  };
  /** Drops the images that were sent, keeping any chosen while the message was on its way. */
  const clearSent = (sent: PendingImage[]) => {
    const keys = new Set(sent.map((i) => i.key));
    free(keys);
    setImages((all) => all.filter((i) => !keys.has(i.key)));
  };
  return { images, add, remove, clearSent };
}

/** The Attach images button and one chip per chosen image: its preview, its state or why it was refused, and Remove. */
export function ImageAttachments(props: { images: PendingImage[]; onAdd: (files: File[]) => void; onRemove: (key: string) => void }) {
  const full = imagesLeft(props.images) <= 0;
  return (
    <div class="chips attachments" aria-live="polite">
      <label class={`button${full ? " disabled" : ""}`}>
        Attach images
        <input
          type="file"
          class="sr-only"
          accept={ACCEPTED_IMAGES}
          multiple
          disabled={full}
          onChange={(e) => {
            const input = e.currentTarget as HTMLInputElement;
            props.onAdd(Array.from(input.files ?? []));
            // The same file may be chosen again after a Remove.
            input.value = "";
          }}
        />
      </label>
      <span class="muted hint">or drop or paste images here</span>
      {props.images.map((image) => (
        <span key={image.key} class={`chip attachment attachment-${image.state}`} data-testid="attachment" data-state={image.state}>
          {image.preview && image.state !== "failed" && <img class="attachment-preview" src={image.preview} alt={`Preview of ${image.filename}`} />}
          {image.filename}
          {image.state === "uploading" && <span class="muted"> uploading…</span>}
          {image.state === "failed" && (
            <span class="attachment-error" role="alert">
              {" "}
              not attached: {image.error}
            </span>
          )}{" "}
          <button type="button" class="link" aria-label={`Remove ${image.filename}`} onClick={() => props.onRemove(image.key)}>
            ×
          </button>
        </span>
      ))}
    </div>
  );
}
