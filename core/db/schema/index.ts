export * from "./agent-data";
export * from "./artifacts";
export * from "./group-chat";
export * from "./runs";
export * from "./schedules";
export * from "./secrets";
export * from "./tenancy";
export * from "./usage";
