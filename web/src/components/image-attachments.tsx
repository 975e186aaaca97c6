import { useRef, useState } from "preact/hooks";
import { api, describe, unwrap } from "../lib/api";
import { ACCEPTED_IMAGES, imagesLeft, type PendingImage } from "../lib/attachments";

/** Uploads one image (POST /api/attachments, multipart field `file`) and answers its id. */
async function upload(file: File): Promise<string> {
  const form = new FormData();
  form.append("file", file);
  // openapi-fetch sends a FormData body as it is, with the browser's multipart boundary.
  return (await unwrap(api.POST("/api/attachments", { body: form as unknown as { file: string } }))).id;
}

/**
 * The composer's images (UI-009): each chosen file is uploaded at once, so the message
 * later references stored ids only; a refused file shows the API's reason.
 */
export function useImageAttachments() {
  const [images, setImages] = useState<PendingImage[]>([]);
  const next = useRef(0);
  const settle = (key: string, image: PendingImage) => setImages((all) => all.map((i) => (i.key === key ? image : i)));

  const add = (files: File[]) => {
    const chosen = files.slice(0, Math.max(0, imagesLeft(images))).map((file) => ({ file, key: String(next.current++) }));
    setImages((all) => [...all, ...chosen.map(({ file, key }): PendingImage => ({ key, filename: file.name, state: "uploading" }))]);
    for (const { file, key } of chosen) {
      upload(file).then(
        (id) => settle(key, { key, filename: file.name, state: "ready", id }),
        (error: unknown) => settle(key, { key, filename: file.name, state: "failed", error: describe(error) }),
      );
    }
  };
  const remove = (key: string) => setImages((all) => all.filter((i) => i.key !== key));
  return { images, add, remove, clear: () => setImages([]) };
}

/** The Attach images button and one chip per chosen image, with its state and Remove. */
export function ImageAttachments(props: { images: PendingImage[]; onAdd: (files: File[]) => void; onRemove: (key: string) => void }) {
  const full = imagesLeft(props.images) <= 0;
  return (
    <div class="chips attachments">
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
      {props.images.map((image) => (
        <span key={image.key} class={`chip attachment attachment-${image.state}`} data-testid="attachment" data-state={image.state}>
          {image.filename}
          {image.state === "uploading" && <span class="muted"> uploading…</span>}
          {image.state === "failed" && <span class="attachment-error"> not attached: {image.error}</span>}{" "}
          <button type="button" class="link" aria-label={`Remove ${image.filename}`} onClick={() => props.onRemove(image.key)}>
            ×
          </button>
        </span>
      ))}
    </div>
  );
}
