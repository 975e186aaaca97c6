/** `tsx scripts/mcp-server/main.ts [port]`: the local MCP server on its own. */
import { startMcpServer } from "./server";

const server = await startMcpServer({ port: Number(process.argv[2] ?? 0) || 0 });
console.log(`Local MCP server ${server.url}/mcp (SSE ${server.url}/sse, bearer ${server.url}/bearer/mcp)`);
