/**
 * The unconditional approval gates. Per-tool and per-server policies and the
 * interactive confirmation build on the same `Approval` service.
 *
 * @module
 */
import { Effect, Layer } from "effect"
import { Approval, Decision } from "../../services/Approval.js"

/** Every call runs: for programs where no person is present to confirm. */
export const autoApprove: Layer.Layer<Approval> = Layer.succeed(Approval, {
  check: () => Effect.succeed(Decision.Approved())
})

/** No call runs; the model is told why. */
export const deny = (reason = "tool calls are disabled for this agent"): Layer.Layer<Approval> =>
  Layer.succeed(Approval, { check: () => Effect.succeed(Decision.Denied({ reason })) })
