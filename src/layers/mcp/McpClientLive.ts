/**
 * The `McpClient`, over Streamable HTTP or a child process's stdio,
 * registering each connected server's tools into the `ToolRegistry` in
 * context.
 *
 * - Names: `<alias>__<tool>`, kept a valid function name; a local tool of
 *   the same name wins and the remote one is skipped (with a warning).
 * - Servers configured at start get one quick try (a second by default);
 *   one that cannot be reached is reported, the rest start without it, and
 *   it is tried again in the background until it answers.
 * - `notifications/tools/list_changed`, with a reply or on the server's
 *   standalone GET stream, re-reads the server's tools.
 * - Closing the layer's scope ends every session.
 *
 * ```ts
 * const mcp = McpClientLive.layer({ servers: [{ url: "http://127.0.0.1:8090/mcp", alias: "docs" }] })
 * ```
 *
 * @module
 */
import { HttpClientRequest } from "@effect/platform"
import { Duration, Effect, Either, ExecutionStrategy, Exit, Layer, Option, Schedule, Schema, Scope, SynchronizedRef } from "effect"
import { isValidAlias, McpError, qualifiedToolName, ToolsListResult, type WireTool } from "../../domain/mcp.js"
import { McpClient, type McpServer, type McpServerConfig, type McpTool, type Service } from "../../services/McpClient.js"
import { ToolRegistry } from "../../services/ToolRegistry.js"
import { makeTransport } from "../client/transport.js"
import * as HttpClientLive from "../http/HttpClientLive.js"
import * as Connection from "./connection.js"
import * as HttpChannel from "./httpChannel.js"
import * as StdioChannel from "./stdioChannel.js"
import { remoteTool } from "./remoteTools.js"

/** How the client connects. */
export interface Options {
  /** Servers to connect to at start. */
  readonly servers?: ReadonlyArray<McpServerConfig>
  /** Retries of a request that failed before a response (unreachable, timeout, 5xx). Default 5. */
  readonly retries?: number
  /** Seconds a request may wait for data before it fails. Default 120. */
  readonly timeoutSeconds?: number
  /**
   * How long a configured server reached by URL may take to connect at
   * start, in milliseconds, before the others go on without it (it is then
   * tried again in the background). Default 1000.
   */
  readonly startBudgetMillis?: number
}

/** How a configured server that was down at start is tried again: from 1 s, doubling to every 30 s, for good. */
const backgroundRetry = Schedule.exponential("1 second").pipe(Schedule.union(Schedule.spaced("30 seconds")))

interface Entry {
  readonly server: McpServer
  readonly connection: Connection.Connection
  /** Where the connection's resources live (a stdio server's process). */
  readonly scope: Scope.CloseableScope
}

const badAlias = (where: string, alias: string) =>
  new McpError({ server: where, reason: "Config", detail: `alias "${alias}": use 1 to 24 letters, digits or -` })

const decodeList = Schema.decodeUnknownEither(ToolsListResult)

/** The pages of `tools/list` at most; a server that keeps paging past it is misbehaving. */
const maxPages = 100

/** An alias from the URL: host and port, e.g. `127-0-0-1-8090`. */
export const aliasFromUrl = (url: URL): string =>
  `${url.hostname}${url.port === "" ? "" : `-${url.port}`}`.replace(/[^A-Za-z0-9-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 24) || "mcp"

const make = (options: Options) =>
  Effect.gen(function*() {
    const registry = yield* ToolRegistry
    const layerScope = yield* Effect.scope
    const timeout = Duration.seconds(options.timeoutSeconds ?? 120)
    const transport = makeTransport(
      // Without TLS options there is no CA file to read: this cannot fail.
      yield* Effect.orDie(HttpClientLive.make()),
      { retries: options.retries ?? 5, timeout },
      (request) => HttpClientRequest.setHeader(request, "user-agent", "easyai")
    )
    const entries = yield* SynchronizedRef.make(new Map<string, Entry>())

    const listTools = (alias: string, connection: Connection.Connection) =>
      Effect.gen(function*() {
        const tools: Array<WireTool> = []
        let cursor: string | undefined
        for (let page = 0; page < maxPages; page++) {
          const result = decodeList(yield* connection.request("tools/list", cursor === undefined ? {} : { cursor }))
          if (Either.isLeft(result)) {
            return yield* new McpError({ server: alias, reason: "Protocol", detail: "the tools/list result is malformed" })
          }
          tools.push(...result.right.tools)
          cursor = result.right.nextCursor ?? undefined
          if (cursor === undefined) return tools
        }
        return yield* new McpError({ server: alias, reason: "Protocol", detail: `tools/list kept paging past ${maxPages} pages` })
      })

    /** Registers the tools; a name a local tool already has stays local. */
    const register = (alias: string, connection: Connection.Connection, tools: ReadonlyArray<WireTool>) =>
      Effect.forEach(tools, (tool) =>
        Effect.gen(function*() {
          const name = qualifiedToolName(alias, tool.name)
          const base = { alias, name: tool.name, description: tool.description ?? "", inputSchema: tool.inputSchema ?? {} }
          if (yield* registry.has(name)) {
            yield* Effect.logWarning(`MCP server ${alias}: tool ${tool.name} skipped, a local tool is already called ${name}`)
            return { ...base, registeredAs: undefined } satisfies McpTool
          }
          const proxied = remoteTool(name, tool, (args) =>
            connection.request("tools/call", { name: tool.name, arguments: args }).pipe(
              Effect.withSpan("McpClient.call", {
                kind: "client",
                attributes: { "easyai.mcp.server": alias, "gen_ai.tool.name": tool.name, "rpc.system": "jsonrpc", "rpc.method": "tools/call" }
              })
            ))
          const added = yield* Effect.either(registry.add(proxied))
          if (Either.isLeft(added)) {
            yield* Effect.logWarning(`MCP server ${alias}: tool ${tool.name} skipped: ${added.left.message}`)
            return { ...base, registeredAs: undefined } satisfies McpTool
          }
          return { ...base, registeredAs: name } satisfies McpTool
        }))

    const unregister = (server: McpServer) =>
      Effect.forEach(server.tools, (tool) => (tool.registeredAs === undefined ? Effect.void : registry.remove(tool.registeredAs)), {
        discard: true
      })

    /** Re-reads a server's tools after it said they changed. */
    const refresh = (alias: string): Effect.Effect<void> =>
      SynchronizedRef.updateEffect(entries, (all) =>
        Effect.gen(function*() {
          const entry = all.get(alias)
          if (entry === undefined) return all
          const tools = yield* listTools(alias, entry.connection)
          yield* unregister(entry.server)
          const registered = yield* register(alias, entry.connection, tools)
          return new Map(all).set(alias, { ...entry, server: { ...entry.server, tools: registered } })
        }).pipe(Effect.catchAll((error) => Effect.as(Effect.logWarning(`MCP refresh failed: ${error.message}`), all))))

    /** The alias and the channel `config` asks for, the channel living in `scope`. */
    const open = (config: McpServerConfig, scope: Scope.Scope, onNotification: (alias: string) => (method: string) => Effect.Effect<void>) =>
      Effect.gen(function*() {
        if ("command" in config) {
          if (!isValidAlias(config.alias)) return yield* badAlias(config.command, config.alias)
          const channel = yield* StdioChannel.make({
            name: config.alias,
            command: config.command,
            args: config.args ?? [],
            ...(config.env === undefined ? {} : { env: config.env }),
            ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
            timeout,
            onNotification: onNotification(config.alias)
          }).pipe(Scope.extend(scope))
          return { alias: config.alias, where: `stdio:${[config.command, ...(config.args ?? [])].join(" ")}`, channel }
        }
        let url: URL
        try {
          url = new URL(config.url)
        } catch {
          return yield* new McpError({ server: config.url, reason: "Config", detail: "not a URL" })
        }
        if (url.protocol !== "http:" && url.protocol !== "https:") {
          return yield* new McpError({ server: config.url, reason: "Config", detail: "only http:// and https:// servers are supported" })
        }
        const alias = config.alias ?? aliasFromUrl(url)
        if (!isValidAlias(alias)) return yield* badAlias(config.url, alias)
        const channel = HttpChannel.make({
          name: alias,
          url: url.href,
          apiKey: config.apiKey,
          transport,
          onNotification: onNotification(alias)
        })
        return { alias, where: url.href, channel }
      })

    const connect = (config: McpServerConfig): Effect.Effect<McpServer, McpError> =>
      SynchronizedRef.modifyEffect(entries, (all) =>
        Effect.gen(function*() {
          const alias = config.alias
          if (alias !== undefined && all.has(alias)) {
            return yield* new McpError({ server: alias, reason: "Config", detail: "a server with this alias is already connected" })
          }
          const scope = yield* Scope.fork(layerScope, ExecutionStrategy.sequential)
          const connected = Effect.gen(function*() {
            const opened = yield* open(config, scope, (named) => (method) =>
              method === "notifications/tools/list_changed" ? Effect.asVoid(Effect.forkDaemon(refresh(named))) : Effect.void)
            if (all.has(opened.alias)) {
              return yield* new McpError({ server: opened.alias, reason: "Config", detail: "a server with this alias is already connected" })
            }
            const connection = yield* Connection.connect(opened.alias, opened.channel)
            const tools = yield* listTools(opened.alias, connection).pipe(Effect.tapError(() => connection.close))
            const registered = yield* register(opened.alias, connection, tools)
            const info = connection.server.serverInfo
            const server: McpServer = {
              alias: opened.alias,
              url: opened.where,
              protocolVersion: connection.server.protocolVersion,
              serverInfo: info === undefined ? "unknown" : `${info.name}${info.version === undefined ? "" : ` ${info.version}`}`,
              tools: registered
            }
            // What the server says unasked (its tools changed) arrives on a stream of its own, for the session's life.
            if (opened.channel.listen !== undefined) yield* Effect.forkIn(opened.channel.listen, scope)
            return [server, new Map(all).set(opened.alias, { server, connection, scope })] as const
          })
          // A server that did not connect (or whose connecting was cut short) leaves nothing running.
          return yield* connected.pipe(Effect.onError(() => Scope.close(scope, Exit.void)))
        }))

    const disconnect = (alias: string): Effect.Effect<boolean> =>
      SynchronizedRef.modifyEffect(entries, (all) =>
        Effect.gen(function*() {
          const entry = all.get(alias)
          if (entry === undefined) return [false, all] as const
          yield* unregister(entry.server)
          yield* entry.connection.close
          yield* Scope.close(entry.scope, Exit.void)
          const rest = new Map(all)
          rest.delete(alias)
          return [true, rest] as const
        }))

    const servers = Effect.map(SynchronizedRef.get(entries), (all) => [...all.values()].map((entry) => entry.server))
    const tools = Effect.map(servers, (all) => all.flatMap((server) => server.tools))
    const tool = (name: string) =>
      Effect.map(tools, (all) =>
        Option.fromNullable(all.find((candidate) => `${candidate.alias}.${candidate.name}` === name || candidate.registeredAs === name)))

    // Sessions end before the layer's scope stops the stdio servers' processes.
    yield* Effect.addFinalizer(() =>
      Effect.flatMap(SynchronizedRef.get(entries), (all) => Effect.forEach(all.values(), (entry) => entry.connection.close, { discard: true }))
    )

    // A configured server gets one quick try at start; one that is down is tried again in the background.
    const startBudget = Duration.millis(options.startBudgetMillis ?? 1000)
    for (const config of options.servers ?? []) {
      // A stdio server is not down while it starts (npx may be downloading it): only URLs are held to the budget.
      const first = yield* ("command" in config ? connect(config) : connect(config).pipe(
        Effect.timeoutFail({
          duration: startBudget,
          onTimeout: () =>
            new McpError({ server: config.url, reason: "Unreachable", detail: `no answer within ${Duration.format(startBudget)}` })
        })
      )).pipe(Effect.either)
      if (Either.isRight(first)) continue
      if (first.left.reason !== "Unreachable") {
        yield* Effect.logWarning(`${first.left.message}; continuing without it`)
        continue
      }
      yield* Effect.logWarning(`${first.left.message}; continuing without it, and trying again in the background`)
      yield* connect(config).pipe(
        Effect.retry({ schedule: backgroundRetry, while: (error) => error.reason === "Unreachable" }),
        Effect.tap((server) => Effect.logInfo(`MCP server ${server.alias} connected: ${server.tools.length} tools`)),
        Effect.catchAll((error) => Effect.logWarning(`${error.message}; giving up on it`)),
        Effect.forkIn(layerScope)
      )
    }

    return { connect, disconnect, servers, tools, tool } satisfies Service
  })

/** The client, connecting to `options.servers` at start and registering their tools. */
export const layer = (options: Options = {}): Layer.Layer<McpClient, never, ToolRegistry> =>
  Layer.scoped(McpClient, make(options))
