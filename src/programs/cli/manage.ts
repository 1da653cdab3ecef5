/**
 * The management commands: ask a running server (`--url`) what it serves
 * and how it is doing, or switch its preset; `easyai tools` without
 * `--remote` lists the local toolbelt the flags would give an agent.
 *
 * @module
 */
import { Args, Command, Options } from "@effect/cli"
import { Console, Effect } from "effect"
import { PresetName } from "../../domain/Sampling.js"
import { wireDescription } from "../../domain/ToolCall.js"
import * as ClientLive from "../../layers/client/ClientLive.js"
import * as NoChatModel from "../../layers/model/NoChatModel.js"
import * as SessionStack from "../../layers/session/SessionStack.js"
import { Client } from "../../services/Client.js"
import { ToolRegistry } from "../../services/ToolRegistry.js"
import { reportFailure } from "./failure.js"
import { clientOverrides, type RemoteFlags, remoteFlags } from "./remoteFlags.js"
import * as ToolFlags from "./toolFlags.js"

/** Runs `use` against the server the flags name. */
const withClient = <A, E>(flags: RemoteFlags, use: (client: Client["Type"]) => Effect.Effect<A, E>) =>
  Effect.flatMap(Client, use).pipe(Effect.provide(ClientLive.layerConfig(clientOverrides(flags))))

const remoteCommand = <A, E>(
  name: string,
  description: string,
  use: (client: Client["Type"]) => Effect.Effect<A, E>
) =>
  Command.make(name, remoteFlags, (flags) => withClient(flags, use).pipe(reportFailure(`easyai ${name}`))).pipe(
    Command.withDescription(description)
  )

const json = (value: unknown) => Console.log(JSON.stringify(value, null, 2))

/** `easyai models`: the server's models, one id per line. */
export const modelsCommand = remoteCommand("models", "List the models of the server at --url (GET /v1/models).", (client) =>
  Effect.flatMap(client.models, (models) => Console.log(models.map((model) => model.id).join("\n"))))

/** `easyai health`. */
export const healthCommand = remoteCommand("health", "Show the health of the server at --url (GET /health).", (client) =>
  Effect.flatMap(client.health, (health) => json(health.details)))

/** `easyai props`. */
export const propsCommand = remoteCommand("props", "Show the configuration of the server at --url (GET /props).", (client) =>
  Effect.flatMap(client.props, json))

/** `easyai metrics`. */
export const metricsCommand = remoteCommand("metrics", "Show the Prometheus metrics of the server at --url (GET /metrics).", (client) =>
  Effect.flatMap(client.metrics, (text) => Console.log(text.trimEnd())))

/** `easyai preset NAME`. */
export const presetCommand = Command.make(
  "preset",
  { ...remoteFlags, name: Args.choice(PresetName.literals.map((name) => [name, name] as const), { name: "NAME" }) },
  (flags) =>
    withClient(flags, (client) => Effect.zipRight(client.setPreset(flags.name), Console.log(`preset: ${flags.name}`))).pipe(
      reportFailure("easyai preset")
    )
).pipe(Command.withDescription("Switch the default sampling preset of the server at --url (POST /v1/preset)."))

const line = (name: string, description: string) => `${name} — ${wireDescription(description)}`

/** `easyai tools`: the local toolbelt, or with `--remote` the server's. */
export const toolsCommand = Command.make(
  "tools",
  {
    ...remoteFlags,
    remote: Options.boolean("remote").pipe(Options.withDescription("List the tools of the server at --url instead (GET /v1/tools).")),
    sandbox: ToolFlags.sandbox,
    allowBash: ToolFlags.allowBash,
    noPython: ToolFlags.noPython,
    externalTools: ToolFlags.externalTools
  },
  (flags) => {
    const listed: Effect.Effect<void, unknown> = flags.remote
      ? withClient(flags, (client) =>
        Effect.flatMap(client.tools, (tools) => Console.log(tools.map((tool) => line(tool.name, tool.description)).join("\n"))))
      : Effect.gen(function*() {
        yield* ToolFlags.checkHostFlags(flags)
        const specs = yield* Effect.flatMap(ToolRegistry, (registry) => registry.specs).pipe(
          Effect.provide(SessionStack.layer({ model: NoChatModel.layer("listing tools needs no model"), ...ToolFlags.hostOption(flags) }))
        )
        yield* Console.log(specs.map((spec) => line(spec.name, spec.shortDescription)).join("\n"))
      })
    return listed.pipe(reportFailure("easyai tools"))
  }
).pipe(Command.withDescription("List the tools an agent gets with these flags, or with --remote those of the server at --url."))
