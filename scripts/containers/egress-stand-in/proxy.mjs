// Local stand-in for the container sidecar workerd starts next to every container
// (cloudflare/proxy-everything, which no registry here can serve). It answers the three
// things workerd asks of it: CONNECT with X-Dst-Addr (inbound traffic to the box), PUT /egress
// (egress settings: accepted, not enforced) and GET /ca (a PEM certificate; any parseable one
// will do, since nothing is intercepted). Outbound traffic is not intercepted locally.
import { createServer } from "node:http";
import { connect } from "node:net";
import { rootCertificates } from "node:tls";

const flag = process.argv.find((arg) => arg.startsWith("-http-ingress-address=") || arg.startsWith("--http-ingress-address="));
const address = flag ? flag.split("=")[1] : "0.0.0.0:39001";
const port = Number(address.split(":").at(-1));
const host = address.slice(0, address.lastIndexOf(":")) || "0.0.0.0";

const server = createServer((req, res) => {
  req.resume();
  if (req.method === "GET" && req.url === "/ca") return res.end(rootCertificates[0]);
  res.writeHead(req.method === "PUT" && req.url === "/egress" ? 204 : 404).end();
});

server.on("connect", (req, socket, head) => {
  const target = String(req.headers["x-dst-addr"] ?? req.url ?? "");
  const colon = target.lastIndexOf(":");
  const upstream = connect(Number(target.slice(colon + 1)), target.slice(0, colon).replace(/^\[|\]$/g, ""));
  upstream.once("connect", () => {
    socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length) upstream.write(head);
    socket.pipe(upstream).pipe(socket);
  });
  // A closed port is 400, as the real sidecar answers: workerd reads it as "not listening yet".
  upstream.once("error", () => {
    if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\n\r\n");
  });
  socket.on("error", () => upstream.destroy());
});

server.listen(port, host);
process.on("SIGTERM", () => process.exit(0));
