/**
 * The Browser view's page (UI-012, UI-013), served by the proxy at the view's root: noVNC's
 * own RFB client, loaded from the box through the same prefix, drawn scaled to the frame
 * while the desktop keeps its 1280x720. The console talks to it with postMessage (its
 * origin is opaque, see VIEW_HEADERS): it posts `{type: "paste", text}` to put text on the
 * box's clipboard, and hears `{type: "vnc", state}` and `{type: "vnc", clipboard}` back.
 */
export const VNC_VIEWER_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Browser</title>
<style>html,body{margin:0;height:100%;overflow:hidden;background:#1d1f21}#screen{width:100%;height:100%}</style>
</head>
<body>
<div id="screen"></div>
<script type="module">
const tell = (message) => parent.postMessage({ type: "vnc", ...message }, "*");
// The desktop may still be starting (a loaded host takes a while): retry for about half a
// minute before the first connection. A connection that drops is not retried, or an open tab
// would bring back a box destroyed as idle (SBX-031).
const RETRIES = 30;
try {
  const { default: RFB } = await import("./core/rfb.js");
  const url = new URL("websockify", location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  let rfb = null;
  let failures = 0;
  let connected = false;
  const connect = () => {
    rfb = new RFB(document.getElementById("screen"), url.href);
    rfb.scaleViewport = true;
    rfb.resizeSession = false;
    rfb.addEventListener("connect", () => {
      connected = true;
      tell({ state: "connected" });
    });
    rfb.addEventListener("disconnect", (event) => {
      rfb = null;
      if (connected || ++failures > RETRIES) return tell({ state: "disconnected", clean: event.detail.clean });
      tell({ state: "reconnecting" });
      setTimeout(connect, 1000);
    });
    rfb.addEventListener("clipboard", (event) => tell({ clipboard: event.detail.text }));
  };
  connect();
  addEventListener("message", (event) => {
    if (event.source !== parent || event.data?.type !== "paste" || !rfb) return;
    rfb.clipboardPasteFrom(String(event.data.text));
    rfb.focus();
  });
} catch (error) {
  // A module that failed to load stays failed in this document (its module map keeps the
  // failure), and one lost request fails the whole client: the host's network changing under
  // the browser (a VPN, a new interface) aborts requests in flight. Load the page again, a few times.
  const attempt = Number(/retry=([0-9]+)/.exec(location.hash)?.[1] ?? 0);
  if (attempt < 3) {
    tell({ state: "reconnecting" });
    setTimeout(() => {
      location.hash = "retry=" + (attempt + 1);
      location.reload();
    }, 500 * (attempt + 1));
  } else {
    tell({ state: "failed", message: String(error?.message ?? error) });
  }
}
</script>
</body>
</html>
`;
