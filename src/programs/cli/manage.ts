/**
 * The management commands' bodies: ask a running server (`--url`) what it
 * serves and how it is doing, or switch its preset; list the local
 * toolbelt the tool flags would give an agent.
 *
 * @module
 */
import { Console, Effect } from "effect"
import type { PresetName } from "../../domain/Sampling.js"
import { wireDescription } from "../../domain/ToolCall.js"
import * as ClientLive from "../../layers/client/ClientLive.js"
import * as NoChatModel from "../../layers/model/NoChatModel.js"
import * as SessionStack from "../../layers/session/SessionStack.js"
import { Client } from "../../services/Client.js"
import { Sandbox } from "../../services/Sandbox.js"
import { ToolRegistry } from "../../services/ToolRegistry.js"
import { reportFailure } from "./failure.js"
import { clientOverrides, type RemoteFlags } from "./remoteFlags.js"
import * as ToolFlags from "./toolFlags.js"

/** Runs `use` against the server the flags name, reporting a failure as `easyai <command>: …`. */
const withClient = <A, E>(command: string, flags: RemoteFlags, use: (client: Client["Type"]) => Effect.Effect<A, E>) =>
  Effect.flatMap(Client, use).pipe(Effect.provide(ClientLive.layerConfig(clientOverrides(flags))), reportFailure(`easyai ${command}`))

const json = (value: unknown) => Console.log(JSON.stringify(value, null, 2))

const line = (name: string, description: string) => `${name} — ${wireDescription(description)}`

/** `easyai models`: the server's models, one id per line. */
export const models = (flags: RemoteFlags) =>
  withClient("models", flags, (client) => Effect.flatMap(client.models, (all) => Console.log(all.map((model) => model.id).join("\n"))))

/** `easyai health`. */
export const health = (flags: RemoteFlags) =>
  withClient("health", flags, (client) => Effect.flatMap(client.health, (result) => json(result.details)))

/** `easyai props`. */
export const props = (flags: RemoteFlags) => withClient("props", flags, (client) => Effect.flatMap(client.props, json))

/** `easyai metrics`. */
export const metrics = (flags: RemoteFlags) =>
  withClient("metrics", flags, (client) => Effect.flatMap(client.metrics, (text) => Console.log(text.trimEnd())))

/** `easyai preset NAME`. */
export const preset = (flags: RemoteFlags & { readonly name: PresetName }) =>
  withClient("preset", flags, (client) => Effect.zipRight(client.setPreset(flags.name), Console.log(`preset: ${flags.name}`)))

/** `easyai tools`: the local toolbelt, or with `--remote` the server's. */
export const tools = (flags: RemoteFlags & ToolFlags.HostFlags & { readonly remote: boolean }) =>
  flags.remote
    ? withClient("tools", flags, (client) =>
      Effect.flatMap(client.tools, (all) => Console.log(all.map((tool) => line(tool.name, tool.description)).join("\n"))))
    : Effect.gen(function*() {
      yield* ToolFlags.checkHostFlags(flags)
      const host = ToolFlags.hostOption(flags)
      const [specs, sandbox] = yield* Effect.all([Effect.flatMap(ToolRegistry, (registry) => registry.specs), Sandbox]).pipe(
        Effect.provide(SessionStack.layer({
          model: NoChatModel.layer("listing tools needs no model"),
          ...host,
          ...ToolFlags.webOption(flags)
        }))
      )
      yield* Console.log(specs.map((spec) => line(spec.name, spec.shortDescription)).join("\n"))
      // Which guard holds the tool processes these flags would start.
      if (host.host !== undefined) yield* Console.log(`\ntools: isolation ${sandbox.isolation.summary}`)
    }).pipe(reportFailure("easyai tools"))
