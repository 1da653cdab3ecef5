/**
 * Running the tool calls of one model turn, in the order the model made
 * them, each through the approval gate and then the registry.
 *
 * @module
 */
import { Clock, Effect, Stream, type Tracer } from "effect"
import { type AgentEvent, ToolCallFinished, ToolCallStarted } from "../../domain/AgentEvent.js"
import { ToolMessage } from "../../domain/Message.js"
import { type ToolCall, ToolResult } from "../../domain/ToolCall.js"
import { Decision, type Service as ApprovalService } from "../../services/Approval.js"
import type { Service as RegistryService } from "../../services/ToolRegistry.js"

/** A turn's tool calls: the events of running them, and their results once the events have ended. */
export interface Dispatch {
  /** `ToolCallStarted` as each call starts, `ToolCallFinished` when it is done. */
  readonly events: Stream.Stream<AgentEvent>
  /** The tool messages of the calls finished so far, in order. */
  readonly results: ReadonlyArray<ToolMessage>
}

const runOne = (
  call: ToolCall,
  approval: ApprovalService,
  registry: RegistryService,
  results: Array<ToolMessage>
): Effect.Effect<ToolCallFinished> =>
  Effect.gen(function*() {
    const startedAt = yield* Clock.currentTimeMillis
    const decision = yield* approval.check(call).pipe(
      Effect.tap((decision) => Effect.annotateCurrentSpan("easyai.approval.decision", decision._tag)),
      Effect.withSpan("Approval.check", { attributes: { "gen_ai.tool.name": call.name, "gen_ai.tool.call.id": call.id } })
    )
    const result = yield* Decision.$match(decision, {
      Approved: () => registry.call(call),
      Denied: ({ reason }) => Effect.succeed(ToolResult.error(`${call.name} was not run: ${reason}`))
    })
    const finishedAt = yield* Clock.currentTimeMillis
    results.push(new ToolMessage({ toolCallId: call.id, name: call.name, content: result.content, isError: result.isError }))
    return new ToolCallFinished({ call, result, durationMillis: finishedAt - startedAt })
  })

/**
 * Runs `calls` one after the other as they are read, each announced before
 * it runs. Their spans (the approval's, the registry's) are children of
 * `parent`, the hop's.
 */
export const dispatchToolCalls = (
  calls: ReadonlyArray<ToolCall>,
  approval: ApprovalService,
  registry: RegistryService,
  parent: Tracer.AnySpan
): Dispatch => {
  const results: Array<ToolMessage> = []
  const events = Stream.fromIterable(calls).pipe(
    Stream.flatMap((call) =>
      Stream.concat(
        Stream.succeed(new ToolCallStarted({ call })),
        Stream.fromEffect(Effect.withParentSpan(runOne(call, approval, registry, results), parent))
      )
    )
  )
  return { events, results }
}
