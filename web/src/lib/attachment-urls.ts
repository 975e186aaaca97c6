import { api, unwrap } from "./api";

/**
 * Object URLs of stored attachments, fetched once per page with the session's token (an
 * `<img src>` cannot send it): a transcript's thumbnail and its enlarged view share one
 * download. A failed download is forgotten, so the next view tries again.
 */
const urls = new Map<string, Promise<string>>();

/** The object URL of an attachment's bytes (GET /api/attachments/:id). */
export function attachmentUrl(id: string): Promise<string> {
  let url = urls.get(id);
  if (!url) {
    url = unwrap(api.GET("/api/attachments/{id}", { params: { path: { id } }, parseAs: "blob" })).then((blob) => URL.createObjectURL(blob as Blob));
    url.catch(() => urls.delete(id));
    urls.set(id, url);
  }
  return url;
}
