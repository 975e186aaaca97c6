/**
 * The web terminal's page: xterm.js filling the window, talking to `ws` beside it. Every URL
 * is relative, so the page works under /t/<secret>/ directly and behind the orchestrator's
 * proxy path alike.
 */
export const TERMINAL_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Terminal</title>
<link rel="stylesheet" href="xterm.css">
<style>html,body{margin:0;height:100%;background:#000;overflow:hidden}#terminal{position:absolute;inset:0}</style>
</head>
<body>
<div id="terminal"></div>
<script src="xterm.js"></script>
<script src="addon-fit.js"></script>
<script>
const term = new Terminal({ cursorBlink: true, fontFamily: "monospace", fontSize: 14 });
const fit = new FitAddon.FitAddon();
term.loadAddon(fit);
term.open(document.getElementById("terminal"));
fit.fit();
const socket = new WebSocket(new URL("ws", location.href).href.replace(/^http/, "ws"));
const send = (message) => { if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message)); };
const resize = () => send({ type: "resize", cols: term.cols, rows: term.rows });
socket.onopen = () => { resize(); term.focus(); };
socket.onmessage = (event) => term.write(event.data);
socket.onclose = () => term.write("\\r\\n[session closed]\\r\\n");
term.onData((data) => send({ type: "input", data }));
window.addEventListener("resize", () => { fit.fit(); resize(); });
</script>
</body>
</html>
`;
