/**
 * The flags that choose an agent's tools, shared by every command that
 * builds a toolbelt (`serve`, `mcp`, and the chat), and what they turn into.
 *
 * @module
 */
import { Options } from "@effect/cli"
import { Config, Effect, Either, Option } from "effect"
import { ConfigurationError } from "../../domain/errors.js"
import { type IsolateMode, isolateModes } from "../../layers/sandbox/isolation.js"
import type * as SessionStack from "../../layers/session/SessionStack.js"
import { parseNetworks } from "../../layers/tools/web/addressPolicy.js"
import type { CliSettings } from "./config.js"
import { fill, nonBlank } from "./optionalField.js"
import { ToolRegistry } from "../../services/ToolRegistry.js"

/** `--sandbox DIR`: the file tools (and evaluate) confined to a directory. */
export const sandbox = Options.directory("sandbox", { exists: "yes" }).pipe(
  Options.optional,
  Options.withDescription("Give the agent the file tools (and evaluate), confined to this directory.")
)
/** `--allow-bash`. */
export const allowBash = Options.boolean("allow-bash").pipe(Options.withDescription("Add the bash tool, in the sandbox (needs --sandbox)."))
/** `--no-python`. */
export const noPython = Options.boolean("no-python").pipe(Options.withDescription("Leave out the evaluate (Python) tool."))
/** `--external-tools DIR`. */
export const externalTools = Options.directory("external-tools", { exists: "yes" }).pipe(
  Options.optional,
  Options.withDescription("Add the tools declared by EASYAI-*.tools manifests in this directory.")
)

/** `--web-allow CIDR,…`: networks beyond the public internet that the web tools may reach. */
export const webAllow = Options.text("web-allow").pipe(
  Options.optional,
  Options.withDescription(
    "Networks the web tools may reach besides public addresses: comma-separated CIDRs, e.g. 192.168.1.0/24,fd00::/8 (default: none; loopback, private, link-local and metadata addresses are refused)."
  )
)
/** `--isolate auto|on|off`: how tool processes are confined. */
export const isolate = Options.choice("isolate", isolateModes).pipe(
  Options.optional,
  Options.withDescription(
    "How tool processes (bash, evaluate, external tools) are confined: auto (default) runs each call in a bubblewrap " +
      "PID namespace, evaluate read-only with no network, where that works, and falls back otherwise; on refuses to " +
      "start without it; off tracks and kills each call's processes, and guards evaluate with a Python audit hook."
  )
)
/** `--tool-env NAME,…`: more variables for tool processes. */
export const toolEnv = Options.text("tool-env").pipe(
  Options.optional,
  Options.withDescription(
    "Pass these variables (comma-separated names) to bash besides PATH, HOME, LANG, LANGUAGE, LC_*, TERM, " +
      "TZ, USER, LOGNAME, SHELL and TMPDIR. easyai's own EASYAI_* variables are refused."
  )
)

/** `--api-key`, from `EASYAI_API_KEY` when absent; a blank key is no key, not one nothing can match. */
export const apiKey = (description: string) =>
  Options.redacted("api-key").pipe(
    Options.withFallbackConfig(Config.redacted("EASYAI_API_KEY")),
    Options.optional,
    Options.map(nonBlank),
    Options.withDescription(description)
  )

/** What the host-tool flags parsed to. */
export interface HostFlags {
  readonly sandbox: Option.Option<string>
  readonly allowBash: boolean
  readonly noPython: boolean
  readonly externalTools?: Option.Option<string>
  readonly webAllow: Option.Option<string>
  readonly isolate: Option.Option<IsolateMode>
  readonly toolEnv: Option.Option<string>
}

/** The flags that choose a toolbelt, as both the chat and `easyai mcp` parse them. */
export interface ToolbeltFlags extends HostFlags {
  readonly externalTools: Option.Option<string>
  readonly memory: Option.Option<string>
  readonly skills: Option.Option<string>
  readonly toolsMode: Option.Option<"split" | "unified" | "both">
  readonly tools: Option.Option<string>
  readonly mcp: ReadonlyArray<string>
}

/** The toolbelt flags with the settings file's `[cli]` values where a flag was not given. */
export const withCliTools = <F extends ToolbeltFlags>(flag: F, cli: CliSettings): F => ({
  ...flag,
  sandbox: fill(flag.sandbox, cli.sandbox),
  allowBash: flag.allowBash || cli.allowBash === true,
  memory: fill(flag.memory, cli.memory),
  skills: fill(flag.skills, cli.skills),
  externalTools: fill(flag.externalTools, cli.externalTools),
  toolsMode: fill(flag.toolsMode, cli.toolsMode),
  webAllow: fill(flag.webAllow, cli.webAllow?.join(",")),
  tools: fill(flag.tools, cli.tools?.join(",")),
  mcp: flag.mcp.length > 0 ? flag.mcp : [...(cli.mcp ?? [])],
  ...withToolSettings(flag, cli)
})

/** `--isolate` and `--tool-env` with a settings section's `isolate` and `tool_env` where the flag was not given. */
export const withToolSettings = (
  flag: Pick<HostFlags, "isolate" | "toolEnv">,
  section: { readonly isolate?: IsolateMode; readonly toolEnv?: ReadonlyArray<string> }
): Pick<HostFlags, "isolate" | "toolEnv"> => ({
  isolate: fill(flag.isolate, section.isolate),
  toolEnv: fill(flag.toolEnv, section.toolEnv?.join(","))
})

/** Refuses combinations that cannot work, and networks that are not networks, before anything loads. */
export const checkHostFlags = (flags: HostFlags): Effect.Effect<void, ConfigurationError> => {
  if (flags.allowBash && Option.isNone(flags.sandbox)) {
    return Effect.fail(new ConfigurationError({ message: "--allow-bash needs --sandbox DIR: the shell runs inside the sandbox" }))
  }
  const networks = parseNetworks(names(flags.webAllow))
  return Either.isLeft(networks)
    ? Effect.fail(new ConfigurationError({ message: `--web-allow: ${networks.left.message}` }))
    : Effect.void
}

/** The stack's `web` option for `--web-allow`: nothing when it is absent (public addresses only). */
export const webOption = (flags: HostFlags): Pick<SessionStack.Options<never>, "web"> => {
  const allowNetworks = names(flags.webAllow)
  return allowNetworks.length === 0 ? {} : { web: { allowNetworks } }
}

/** The stack's `host` option for the flags: none unless a sandbox or external tools are asked for. */
export const hostOption = (flags: HostFlags): Pick<SessionStack.Options<never>, "host"> => {
  const external = flags.externalTools ?? Option.none()
  if (Option.isNone(flags.sandbox) && Option.isNone(external)) return {}
  return {
    host: {
      root: Option.getOrElse(flags.sandbox, () => "."),
      fs: Option.isSome(flags.sandbox),
      bash: flags.allowBash,
      evaluate: Option.isSome(flags.sandbox) && !flags.noPython,
      toolEnv: names(flags.toolEnv),
      ...Option.match(flags.isolate, { onNone: () => ({}), onSome: (mode) => ({ isolate: mode }) }),
      ...Option.match(external, { onNone: () => ({}), onSome: (dir) => ({ externalTools: dir }) })
    }
  }
}

/** `--tools a,b,c`: only these tools. */
export const tools = Options.text("tools").pipe(
  Options.optional,
  Options.withDescription("Only these tools: a comma-separated allow-list of names.")
)

/** `--no-tools`: none of the default tools. */
export const noTools = Options.boolean("no-tools").pipe(
  Options.withDescription("Leave out the default tools (datetime, plan, web, tool_lookup); --sandbox tools still count.")
)

/** The entries of a comma-separated flag (`a, b,c` → `["a", "b", "c"]`); none when it is absent. */
export const names = (list: Option.Option<string>): ReadonlyArray<string> =>
  Option.match(list, { onNone: () => [], onSome: (text) => text.split(",").map((name) => name.trim()).filter((name) => name !== "") })

/**
 * Narrows the registry to `--tools`: the other tools are removed, so the
 * catalogue, `tool_lookup` and MCP's `tools/list` all agree on what exists.
 */
export const narrowTools = (list: Option.Option<string>) =>
  Option.match(list, {
    onNone: () => Effect.void,
    onSome: () =>
      Effect.gen(function*() {
        const registry = yield* ToolRegistry
        const wanted = new Set(names(list))
        const present = (yield* registry.specs).map((spec) => spec.name)
        for (const name of present) if (!wanted.has(name)) yield* registry.remove(name)
        const unknown = [...wanted].filter((name) => !present.includes(name))
        if (unknown.length > 0) yield* Effect.logWarning(`--tools: no tool called ${unknown.join(", ")}`)
      })
  })
