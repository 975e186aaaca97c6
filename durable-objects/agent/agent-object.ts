import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../bindings/env";
import type { AgentCore } from "./agent-core";

export type { DeadlineView, FiredDeadlineView, GenerationState } from "./agent-core";

/**
 * One object per agent (see AgentCore, which does the work). This class is all the
 * Worker's main module evaluates of it: the run loop, its tools, the model client and
 * the schedule planner load when the first agent object of an isolate is constructed,
 * before any event reaches it, so an isolate that only serves the API (or the guild
 * objects) never evaluates them. Every method forwards to the core.
 */
export class AgentObject extends DurableObject<Env> {
  private core!: AgentCore;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      const { AgentCore } = await import("./agent-core");
      this.core = new AgentCore(ctx, env);
      this.core.migrateStorage();
      await this.core.sandboxes.objectStarted();
    });
  }

  /** The clock every part of the object reads; tests replace it through `runInDurableObject`. */
  get now(): AgentCore["now"] {
    return this.core.now;
  }
  set now(clock: AgentCore["now"]) {
    this.core.now = clock;
  }
  /** Randomness of the wake-window planner; tests may pin it. */
  get random(): AgentCore["random"] {
    return this.core.random;
  }
  set random(source: AgentCore["random"]) {
    this.core.random = source;
  }
  get multiplexer(): AgentCore["multiplexer"] {
    return this.core.multiplexer;
  }
  get lock(): AgentCore["lock"] {
    return this.core.lock;
  }
  get deadlineHandlers(): AgentCore["deadlineHandlers"] {
    return this.core.deadlineHandlers;
  }
  get runs(): AgentCore["runs"] {
    return this.core.runs;
  }
  get schedules(): AgentCore["schedules"] {
    return this.core.schedules;
  }
  get groupDeliveries(): AgentCore["groupDeliveries"] {
    return this.core.groupDeliveries;
  }

  override alarm(): ReturnType<AgentCore["alarm"]> {
    return this.core.alarm();
  }
  override fetch(request: Request): ReturnType<AgentCore["fetch"]> {
    return this.core.fetch(request);
  }
  createRun(...args: Parameters<AgentCore["createRun"]>): ReturnType<AgentCore["createRun"]> {
    return this.core.createRun(...args);
  }
  postMessage(...args: Parameters<AgentCore["postMessage"]>): ReturnType<AgentCore["postMessage"]> {
    return this.core.postMessage(...args);
  }
  refreshSchedules(...args: Parameters<AgentCore["refreshSchedules"]>): ReturnType<AgentCore["refreshSchedules"]> {
    return this.core.refreshSchedules(...args);
  }
  queueGroupDelivery(...args: Parameters<AgentCore["queueGroupDelivery"]>): ReturnType<AgentCore["queueGroupDelivery"]> {
    return this.core.queueGroupDelivery(...args);
  }
  cancel(...args: Parameters<AgentCore["cancel"]>): ReturnType<AgentCore["cancel"]> {
    return this.core.cancel(...args);
  }
  resume(...args: Parameters<AgentCore["resume"]>): ReturnType<AgentCore["resume"]> {
    return this.core.resume(...args);
  }
  archive(...args: Parameters<AgentCore["archive"]>): ReturnType<AgentCore["archive"]> {
    return this.core.archive(...args);
  }
  generationState(): ReturnType<AgentCore["generationState"]> {
    return this.core.generationState();
  }
  deadlines(): ReturnType<AgentCore["deadlines"]> {
    return this.core.deadlines();
  }
  setDeadline(...args: Parameters<AgentCore["setDeadline"]>): ReturnType<AgentCore["setDeadline"]> {
    return this.core.setDeadline(...args);
  }
  clearDeadline(...args: Parameters<AgentCore["clearDeadline"]>): ReturnType<AgentCore["clearDeadline"]> {
    return this.core.clearDeadline(...args);
  }
  forget(): ReturnType<AgentCore["forget"]> {
    return this.core.forget();
  }
  firedDeadlines(): ReturnType<AgentCore["firedDeadlines"]> {
    return this.core.firedDeadlines();
  }
  sandboxForView(...args: Parameters<AgentCore["sandboxForView"]>): ReturnType<AgentCore["sandboxForView"]> {
    return this.core.sandboxForView(...args);
  }
  runDiff(...args: Parameters<AgentCore["runDiff"]>): ReturnType<AgentCore["runDiff"]> {
    return this.core.runDiff(...args);
  }
  sandboxViewInput(): ReturnType<AgentCore["sandboxViewInput"]> {
    return this.core.sandboxViewInput();
  }
  sandboxState(): ReturnType<AgentCore["sandboxState"]> {
    return this.core.sandboxState();
  }
  sandboxResetHome(): ReturnType<AgentCore["sandboxResetHome"]> {
    return this.core.sandboxResetHome();
  }
  secretsChanged(): ReturnType<AgentCore["secretsChanged"]> {
    return this.core.secretsChanged();
  }
  scriptsChanged(...args: Parameters<AgentCore["scriptsChanged"]>): ReturnType<AgentCore["scriptsChanged"]> {
    return this.core.scriptsChanged(...args);
  }
  sandboxSettingsChanged(): ReturnType<AgentCore["sandboxSettingsChanged"]> {
    return this.core.sandboxSettingsChanged();
  }
  get sandboxes(): AgentCore["sandboxes"] {
    return this.core.sandboxes;
  }
}
