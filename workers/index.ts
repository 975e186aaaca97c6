import { app } from "./app";

export { AgentObject } from "../durable-objects/agent/agent-object";

export default app;
