/**
 * A conversation on the `Agent`, `ToolRegistry` and `Preamble` in context.
 *
 * System-prompt semantics:
 *
 * | call | history | effect |
 * |---|---|---|
 * | `refreshSystem` | kept | recompose and install (appends recomputed) |
 * | `setSystem(text)` | cleared | replace the base verbatim, recompose |
 * | `addTool(tool)` | kept | register, recompose (its addendum and catalogue line) |
 * | `reset` | cleared | the system prompt stays |
 *
 * The installed system prompt changes only through these calls, never per
 * turn: a stable prompt is what lets a local model reuse its KV cache. The
 * current time reaches the model as a clock note on the turn's own user
 * message, taken fresh on every turn and never written into the history, so
 * earlier turns render the same on every later one.
 *
 * History grows by whole hops as the turn runs, so an interrupted turn keeps
 * its completed tool work; a turn that ends in failure or interruption
 * before any hop completed is taken back whole.
 *
 * @module
 */
import { Cause, Effect, Exit, Layer, Option, Ref, Stream } from "effect"
import type { AgentEvent } from "../../domain/AgentEvent.js"
import type { ToolRegistrationError } from "../../domain/errors.js"
import { AssistantMessage, type ChatMessage, SystemMessage, UserMessage } from "../../domain/Message.js"
import { defaultPreset, type PresetName, resolveSampling, type SamplingOverrides } from "../../domain/Sampling.js"
import { builtinSystemPrompt, joinBlocks, type PreambleOptions } from "../../domain/SystemPrompt.js"
import type { Tool } from "../../domain/Tool.js"
import { Agent, type AgentError } from "../../services/Agent.js"
import { Preamble } from "../../services/Preamble.js"
import {
  type ChatOptions,
  type Compressed,
  interruptedMark,
  type Service,
  Session,
  type SystemAppend
} from "../../services/Session.js"
import { ToolRegistry } from "../../services/ToolRegistry.js"
import { closingTools } from "../tools/toolset.js"

/** How a session starts. */
export interface Config {
  /** Replaces the built-in base prompt verbatim. */
  readonly system?: string
  /** Drops the built-in base prompt (combine with `systemAppend` to write your own). */
  readonly noBuiltinSystem?: boolean
  /**
   * Workspace context that belongs with the base prompt (a workspace's
   * AGENTS.md, the skills section): kept after the base, including when
   * `setSystem` replaces it, and capped by its producers rather than by the
   * operator-append cap.
   */
  readonly context?: ReadonlyArray<string>
  /** Texts appended after the base, in order; functions are recomputed on every refresh. */
  readonly systemAppend?: ReadonlyArray<SystemAppend>
  /** The default tools (see `toolset.ts`): `tool_lookup` here, last; `SessionStack` adds datetime, plan and web first. Default true. */
  readonly withDefaultTools?: boolean
  /** Extra tools, registered before the defaults. */
  readonly tools?: ReadonlyArray<Tool>
  /** Overrides of the dynamic preamble's options. */
  readonly preamble?: Partial<PreambleOptions>
  /** The sampling preset. Default `precise`. */
  readonly preset?: PresetName
  /** Shaper overrides on top of the preset, for every turn. */
  readonly sampling?: SamplingOverrides
  /** Ends the system prompt with the tools catalogue. Default true. */
  readonly toolsCatalogue?: boolean
  /** Overrides the agent's hop budget for this session's turns. */
  readonly maxToolHops?: number
  /** The conversation to continue (without the system prompt), e.g. one saved by a previous run. */
  readonly history?: ReadonlyArray<ChatMessage>
}

/** What the model is asked when a conversation is compressed; it stays in the history with the recap. */
export const recapRequest =
  "Summarise our conversation so far, for yourself to continue from: what I asked for, the facts, files and results we established, the decisions made, and what is still open. Be complete but brief; write notes, not a reply, and call no tools."

const renderAppend = (append: SystemAppend): string => (typeof append === "string" ? append : append())

const make = (config: Config): Effect.Effect<Service, ToolRegistrationError, Agent | ToolRegistry | Preamble> =>
  Effect.gen(function*() {
    const agent = yield* Agent
    const registry = yield* ToolRegistry
    const preamble = yield* Preamble

    for (const tool of [...config.tools ?? [], ...yield* closingTools(config.withDefaultTools ?? true)]) {
      yield* registry.add(tool)
    }

    const base = yield* Ref.make(
      config.system ?? (config.noBuiltinSystem === true ? "" : builtinSystemPrompt)
    )
    const appends = yield* Ref.make<ReadonlyArray<SystemAppend>>(config.systemAppend ?? [])
    const history = yield* Ref.make<ReadonlyArray<ChatMessage>>(config.history ?? [])
    // One turn at a time: a second chat, a reset or a new system prompt waits for the running turn.
    const turnLock = yield* Effect.makeSemaphore(1)

    const renderSystem = Effect.gen(function*() {
      return yield* preamble.compose({
        base: joinBlocks([yield* Ref.get(base), ...(config.context ?? [])]),
        tools: yield* registry.specs,
        appends: (yield* Ref.get(appends)).map(renderAppend),
        toolsCatalogue: config.toolsCatalogue ?? true,
        ...(config.preamble === undefined ? {} : { preamble: config.preamble })
      })
    })
    const installed = yield* Ref.make(yield* renderSystem)
    const install = Effect.flatMap(renderSystem, (prompt) => Ref.set(installed, prompt))

    const samplingFor = (options: ChatOptions) =>
      options.preset !== undefined
        ? resolveSampling(options.preset, options.sampling)
        : resolveSampling(config.preset ?? defaultPreset, { ...config.sampling, ...options.sampling })

    const recordAppended = (messages: ReadonlyArray<ChatMessage>) => Ref.update(history, (all) => [...all, ...messages])

    const stream = (text: string, options: ChatOptions = {}): Stream.Stream<AgentEvent, AgentError> =>
      Stream.unwrapScoped(Effect.gen(function*() {
        yield* Effect.acquireRelease(turnLock.take(1), () => turnLock.release(1))
        const user = new UserMessage({ content: text })
        const system = new SystemMessage({ content: yield* Ref.get(installed) })
        const before = yield* Ref.getAndUpdate(history, (all) => [...all, user])
        // A turn that fails or is interrupted before any hop completed leaves no trace: asking again starts clean.
        const appendedAny = yield* Ref.make(false)
        // The current hop's text so far, for a turn kept after an interruption.
        const shown = yield* Ref.make("")
        yield* Effect.addFinalizer((exit) =>
          Effect.gen(function*() {
            if (Exit.isSuccess(exit)) return
            if (options.keepInterrupted === true && Cause.isInterruptedOnly(exit.cause)) {
              return yield* recordAppended([new AssistantMessage({ content: interruptedAnswer(yield* Ref.get(shown)) })])
            }
            if (!(yield* Ref.get(appendedAny))) yield* Ref.set(history, before)
          })
        )
        const maxToolHops = config.maxToolHops
        const messages = yield* preamble.stamp([system, ...before, user], config.preamble)
        return agent.run({
          messages,
          sampling: samplingFor(options),
          ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
          ...(options.responseFormat === undefined ? {} : { responseFormat: options.responseFormat }),
          ...(options.toolChoice === undefined ? {} : { toolChoice: options.toolChoice }),
          ...(maxToolHops === undefined ? {} : { maxToolHops })
        }).pipe(Stream.tap((event) => {
          switch (event._tag) {
            case "MessagesAppended":
              return Effect.zipRight(Ref.set(shown, ""), Effect.zipRight(Ref.set(appendedAny, true), recordAppended(event.messages)))
            case "HopReset":
              return Ref.set(shown, "")
            case "TextDelta":
              return Ref.update(shown, (text) => text + event.text)
            default:
              return Effect.void
          }
        }))
      })).pipe(Stream.withSpan("Session.turn", { attributes: { "easyai.session.user_chars": text.length } }))

    /** The turn's last event, which a successful run always makes its `TurnComplete`. */
    const completion = (events: Stream.Stream<AgentEvent, AgentError>) =>
      Stream.runLast(events).pipe(
        Effect.map(Option.filter((event) => event._tag === "TurnComplete")),
        Effect.flatMap(Option.match({
          onNone: () => Effect.dieMessage("the agent stream ended without TurnComplete"),
          onSome: Effect.succeed
        }))
      )

    const chat = (text: string, options?: ChatOptions) => completion(stream(text, options))

    const locked = turnLock.withPermits(1)

    // The recap is one tool-less model turn over the whole conversation; the history is swapped only once it is written.
    const compress: Effect.Effect<Compressed, AgentError> = locked(Effect.gen(function*() {
      const before = yield* Ref.get(history)
      if (before.length === 0) return { recap: "", replaced: 0 }
      const request = new UserMessage({ content: recapRequest })
      const turn = yield* completion(agent.run({
        messages: [new SystemMessage({ content: yield* Ref.get(installed) }), ...before, request],
        sampling: samplingFor({}),
        toolChoice: "none",
        maxToolHops: 0
      }))
      const recap = turn.text.trim()
      if (recap === "") return { recap: "", replaced: 0 }
      yield* Ref.set(history, [request, new AssistantMessage({ content: recap })])
      return { recap, replaced: before.length }
    }))

    return {
      chat,
      stream,
      history: Ref.get(history),
      system: Ref.get(installed),
      renderSystem,
      refreshSystem: locked(install),
      setSystem: (text) => locked(Effect.zipRight(Ref.set(base, text), Effect.zipRight(Ref.set(history, []), install))),
      appendSystem: (append) => Ref.update(appends, (all) => [...all, append]),
      addTool: (tool) => locked(Effect.zipRight(registry.add(tool), install)),
      reset: locked(Ref.set(history, [])),
      compress
    }
  })

/** The assistant message that keeps an interrupted answer: what was written, then the mark. */
const interruptedAnswer = (text: string): string =>
  text.trim() === "" ? interruptedMark : `${text.trimEnd()}\n\n${interruptedMark}`

/** A session Layer. */
export const layer = (
  config: Config = {}
): Layer.Layer<Session, ToolRegistrationError, Agent | ToolRegistry | Preamble> => Layer.effect(Session, make(config))
