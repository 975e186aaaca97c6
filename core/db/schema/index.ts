export * from "./tenancy";
export * from "./schedules";
export * from "./runs";
export * from "./artifacts";
export * from "./secrets";
export * from "./usage";
export * from "./group-chat";
export * from "./agent-data";
