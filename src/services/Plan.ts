/**
 * The `Plan` service: the agent-visible task list behind the `plan` tool,
 * and the live feed a program renders it from.
 *
 * @module
 */
import { Context, type Effect, type Stream } from "effect"
import type { PlanError, PlanRequest, PlanResult, PlanSnapshot } from "../domain/plan.js"

/** The plan's operations. */
export interface Service {
  /** The plan as it is now. */
  readonly current: Effect.Effect<PlanSnapshot>
  /**
   * Applies one call (the tool's, or a program's own, e.g. to seed steps):
   * all of it or, when any part is wrong, none of it. A call that changes the
   * plan publishes exactly one snapshot on {@link changes}, however many
   * items it touched; `list` and rejected calls publish nothing.
   */
  readonly apply: (request: PlanRequest) => Effect.Effect<PlanResult, PlanError>
  /**
   * The plan after every change, for a program to re-render live. Each run
   * of the stream is a new subscriber and sees the changes made after it
   * started, not the current plan: read {@link current} for that.
   */
  readonly changes: Stream.Stream<PlanSnapshot>
  /** Drops every item (numbering restarts at 1) and publishes the empty plan. */
  readonly reset: Effect.Effect<void>
}

/** The agent-visible task list. */
export class Plan extends Context.Tag("easyai/Plan")<Plan, Service>() {}
