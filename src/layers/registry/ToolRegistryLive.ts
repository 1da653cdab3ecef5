/**
 * The in-process `ToolRegistry`.
 *
 * @module
 */
import { Cause, Effect, Layer, Ref } from "effect"
import { closestNames } from "../../domain/closestNames.js"
import { ToolRegistrationError } from "../../domain/errors.js"
import { isValidName, type Tool } from "../../domain/Tool.js"
import { type ToolCall, ToolResult } from "../../domain/ToolCall.js"
import { defaultAliases, type Service, type ToolMode, ToolRegistry } from "../../services/ToolRegistry.js"
import { errorText } from "../../domain/errorText.js"

/** Options of {@link make} and {@link layer}. */
export interface Options {
  /** Which tool-family surfaces the model sees; `split` by default. */
  readonly mode?: ToolMode
  /** Tools registered from the start. */
  readonly tools?: ReadonlyArray<Tool>
  /** Legacy name → current name; {@link defaultAliases} by default. */
  readonly aliases?: Readonly<Record<string, string>>
}

const visibleIn = (mode: ToolMode) => (tool: Tool): boolean =>
  tool.surface === "always" || mode === "both" || tool.surface === mode

const unknownTool = (name: string, known: ReadonlyArray<string>): ToolResult => {
  const suggestions = closestNames(name, known)
  const hint = suggestions.length > 0
    ? `Did you mean: ${suggestions.join(", ")}?`
    : `Available tools: ${known.length > 0 ? known.join(", ") : "none"}.`
  return ToolResult.error(`unknown tool: ${name}. ${hint} Call only the tools listed in your schema.`)
}

/** Builds a registry. */
export const make = (options: Options = {}): Effect.Effect<Service, ToolRegistrationError> =>
  Effect.gen(function*() {
    const mode = options.mode ?? "split"
    const aliases = options.aliases ?? defaultAliases
    const registered = yield* Ref.make<ReadonlyArray<Tool>>([])
    const visible = Effect.map(Ref.get(registered), (tools) => tools.filter(visibleIn(mode)))
    const find = (name: string) =>
      Effect.map(visible, (tools) => {
        const canonical = aliases[name] ?? name
        return tools.find((tool) => tool.spec.name === canonical)
      })

    const add = (tool: Tool) =>
      Effect.gen(function*() {
        const name = tool.spec.name
        if (!isValidName(name)) return yield* new ToolRegistrationError({ name, reason: "InvalidName" })
        const added = yield* Ref.modify(registered, (tools) =>
          tools.some((existing) => existing.spec.name === name) ? [false, tools] : [true, [...tools, tool]])
        if (!added) return yield* new ToolRegistrationError({ name, reason: "Duplicate" })
      })

    const call = (toolCall: ToolCall): Effect.Effect<ToolResult> =>
      Effect.gen(function*() {
        const tool = yield* find(toolCall.name)
        if (tool === undefined) {
          const known = (yield* visible).map((t) => t.spec.name)
          return unknownTool(toolCall.name, known)
        }
        return yield* tool.invoke(toolCall.arguments).pipe(
          Effect.catchAllDefect((defect) =>
            Effect.logError("tool handler defect", Cause.die(defect)).pipe(
              Effect.annotateLogs({ tool: tool.spec.name }),
              Effect.as(ToolResult.error(`${tool.spec.name}: internal error: ${defectMessage(defect)}`))
            )
          )
        )
      }).pipe(
        Effect.tap((result) =>
          Effect.annotateCurrentSpan({ "easyai.tool.is_error": result.isError, "easyai.tool.result": result.content })
        ),
        Effect.withSpan("ToolRegistry.call", {
          attributes: {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": toolCall.name,
            "gen_ai.tool.call.id": toolCall.id,
            "gen_ai.tool.call.arguments": toolCall.arguments
          }
        })
      )

    for (const tool of options.tools ?? []) yield* add(tool)

    return {
      mode,
      add,
      remove: (name) =>
        Ref.modify(registered, (tools) => {
          const kept = tools.filter((tool) => tool.spec.name !== name)
          return [kept.length !== tools.length, kept]
        }),
      tools: visible,
      specs: Effect.map(visible, (tools) => tools.map((tool) => tool.spec)),
      has: (name) => Effect.map(find(name), (tool) => tool !== undefined),
      call
    }
  })

const defectMessage = (defect: unknown): string => errorText(defect)

/** A registry Layer. */
export const layer = (options: Options = {}): Layer.Layer<ToolRegistry, ToolRegistrationError> =>
  Layer.effect(ToolRegistry, make(options))
