/**
 * Running the tool calls of one model turn, in the order the model made
 * them, each through the approval gate and then the registry.
 *
 * @module
 */
import { Clock, Effect } from "effect"
import { type AgentEvent, ToolCallFinished, ToolCallStarted } from "../../domain/AgentEvent.js"
import { ToolMessage } from "../../domain/Message.js"
import { type ToolCall, ToolResult } from "../../domain/ToolCall.js"
import { Decision, type Service as ApprovalService } from "../../services/Approval.js"
import type { Service as RegistryService } from "../../services/ToolRegistry.js"

const runOne = (
  call: ToolCall,
  approval: ApprovalService,
  registry: RegistryService,
  emit: (event: AgentEvent) => Effect.Effect<void>
): Effect.Effect<ToolMessage> =>
  Effect.gen(function*() {
    yield* emit(new ToolCallStarted({ call }))
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
    yield* emit(new ToolCallFinished({ call, result, durationMillis: finishedAt - startedAt }))
    return new ToolMessage({ toolCallId: call.id, name: call.name, content: result.content, isError: result.isError })
  })

/** Runs `calls` one after the other and returns the tool messages, in order. */
export const dispatchToolCalls = (
  calls: ReadonlyArray<ToolCall>,
  approval: ApprovalService,
  registry: RegistryService,
  emit: (event: AgentEvent) => Effect.Effect<void>
): Effect.Effect<ReadonlyArray<ToolMessage>> => Effect.forEach(calls, (call) => runOne(call, approval, registry, emit))
