import { app } from "./app";

export { AgentObject } from "../durable-objects/agent/agent-object";
export { GuildObject } from "../durable-objects/guild/guild-object";

export default app;
