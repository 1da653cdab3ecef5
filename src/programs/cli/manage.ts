/**
 * The management commands' bodies: ask a running server (`--url`) what it
 * serves and how it is doing, or switch its preset; list the local
 * toolbelt the tool settings would give an agent.
 *
 * @module
 */
import { Console, Effect } from "effect"
import { ConfigurationError } from "../../domain/errors.js"
import type { PresetName } from "../../domain/Sampling.js"
import { wireDescription } from "../../domain/ToolCall.js"
import * as ClientLive from "../../layers/client/ClientLive.js"
import * as NoChatModel from "../../layers/model/NoChatModel.js"
import * as SessionStack from "../../layers/session/SessionStack.js"
import { Client } from "../../services/Client.js"
import { Sandbox } from "../../services/Sandbox.js"
import { ToolRegistry } from "../../services/ToolRegistry.js"
import { reportFailure } from "./failure.js"
import { type ParsedFlags, settingsFor } from "./settings/options.js"
import { get, type Resolved } from "./settings/resolve.js"
import * as Stack from "./settings/stack.js"
import type { Program } from "./settings/Setting.js"
import { toolProblems } from "./toolCheck.js"

/** Runs `use` against the server the settings name. */
const onServer = <A, E>(settings: Resolved, use: (client: Client["Type"]) => Effect.Effect<A, E>) =>
  Effect.flatMap(Stack.serverUrl(settings), (url) =>
    Effect.flatMap(Client, use).pipe(Effect.provide(ClientLive.layer(Stack.clientConfig(settings, url)))))

/** Runs `use` against the server the flags name, reporting a failure as `easyai <command>: …`. */
const withClient = <A, E>(command: string, program: Program, flags: ParsedFlags, use: (client: Client["Type"]) => Effect.Effect<A, E>) =>
  Effect.flatMap(settingsFor(program, flags), (settings) => onServer(settings, use)).pipe(reportFailure(`easyai ${command}`))

const json = (value: unknown) => Console.log(JSON.stringify(value, null, 2))

const line = (name: string, description: string) => `${name} — ${wireDescription(description)}`

/** `easyai models`: the server's models, one id per line. */
export const models = (flags: ParsedFlags) =>
  withClient("models", "remote", flags, (client) => Effect.flatMap(client.models, (all) => Console.log(all.map((model) => model.id).join("\n"))))

/** `easyai health`. */
export const health = (flags: ParsedFlags) =>
  withClient("health", "remote", flags, (client) => Effect.flatMap(client.health, (result) => json(result.details)))

/** `easyai props`. */
export const props = (flags: ParsedFlags) => withClient("props", "remote", flags, (client) => Effect.flatMap(client.props, json))

/** `easyai metrics`. */
export const metrics = (flags: ParsedFlags) =>
  withClient("metrics", "remote", flags, (client) => Effect.flatMap(client.metrics, (text) => Console.log(text.trimEnd())))

/** `easyai preset NAME`. */
export const preset = (flags: ParsedFlags, name: PresetName) =>
  withClient("preset", "remote", flags, (client) => Effect.zipRight(client.setPreset(name), Console.log(`preset: ${name}`)))

/** The local toolbelt, and whether the manifests and skills behind it all loaded. */
const localTools = (settings: Resolved) =>
  Effect.gen(function*() {
    const options = yield* Stack.stackOptions(settings, { model: NoChatModel.layer("listing tools needs no model") })
    const [specs, sandbox, problems] = yield* Effect.all([
      Effect.flatMap(ToolRegistry, (registry) => registry.specs),
      Sandbox,
      toolProblems(settings)
    ]).pipe(Effect.provide(SessionStack.layer(options)))
    yield* Console.log(specs.map((spec) => line(spec.name, spec.shortDescription)).join("\n"))
    // Which guard holds the tool processes these settings would start.
    if (options.host !== undefined) yield* Console.log(`\ntools: isolation ${sandbox.isolation.summary}`)
    if (problems.length > 0) {
      return yield* new ConfigurationError({ message: `${problems.length} problem(s) in the tools (see above): ${problems[0]}` })
    }
  })

/** `easyai tools`: the local toolbelt, or with `--remote` the server's. */
export const tools = (flags: ParsedFlags) =>
  Effect.gen(function*() {
    const settings = yield* settingsFor("tools", flags)
    if (get(settings, "remote") !== true) return yield* localTools(settings)
    yield* onServer(settings, (client) =>
      Effect.flatMap(client.tools, (all) => Console.log(all.map((tool) => line(tool.name, tool.description)).join("\n"))))
  }).pipe(reportFailure("easyai tools"))
