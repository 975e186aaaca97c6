/**
 * The local stack's door from the boxes to the Worker's gateway routes. A local engine's
 * sidecar does not intercept the boxes' outbound requests (decision 0012), so the boxes reach
 * the git gateway and the model gateway as routes of `wrangler dev` instead
 * (workers/git-gateway.ts, workers/model-gateway.ts). wrangler listens on loopback; this
 * listens on the bridge, where the boxes reach the host, and passes on only
 * `/api/git-gateway/…` and `/api/model-gateway/…`: nothing else of the API is within a box's reach.
 *
 * @example const door = await forwardGitGateway("172.17.0.1", 8787); // door.url → GIT_GATEWAY_URL, door.modelUrl → MODEL_GATEWAY_URL
 */
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";

const PREFIX = "/api/git-gateway/";
const MODEL_PREFIX = "/api/model-gateway/";

export async function forwardGitGateway(bridgeHost: string, apiPort: number): Promise<{ url: string; modelUrl: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    if (!req.url?.startsWith(PREFIX) && !req.url?.startsWith(MODEL_PREFIX)) {
      req.resume();
      res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      return;
    }
    const upstream = request({ host: "127.0.0.1", port: apiPort, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
      res.end("the platform's API did not answer\n");
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, bridgeHost, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${bridgeHost}:${port}${PREFIX.slice(0, -1)}`,
    modelUrl: `http://${bridgeHost}:${port}${MODEL_PREFIX.slice(0, -1)}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
