/**
 * The flags that guard an HTTP server, shared by `easyai serve` and
 * `easyai mcp`: which browser origins may call it, which `Host` names it
 * answers, how long a request may take to arrive, and how many connections
 * one client may hold. Each falls back to the same `[SERVER]` key.
 *
 * @module
 */
import { HelpDoc, Options, ValidationError } from "@effect/cli"
import { Effect, Either, Option } from "effect"
import { parseAllowedHosts } from "../server/hostPolicy.js"
import { type CorsPolicy, parseCorsPolicy } from "../server/originPolicy.js"
import { defaultBodyTimeoutSeconds, defaultMaxClientConnections, type ListenOptions } from "../server/ServerOptions.js"
import type { ServerSettings } from "./config.js"
import { fill, optionalField } from "./optionalField.js"

const invalid = (detail: string) => ValidationError.invalidValue(HelpDoc.p(detail))

const parsedWith = <A>(flag: string, parse: (text: string) => Either.Either<A, string>) => (text: string) =>
  Either.match(parse(text), {
    onLeft: (detail) => Effect.fail(invalid(`--${flag}: ${detail}`)),
    onRight: (value) => Effect.succeed(value)
  })

const atLeastOne = (flag: string) => (value: number) =>
  value >= 1 ? Effect.succeed(value) : Effect.fail(invalid(`--${flag}: expected a whole number of at least 1, got ${value}`))

/** `--cors`. */
export const cors = Options.text("cors").pipe(
  Options.mapEffect(parsedWith("cors", parseCorsPolicy)),
  Options.optional,
  Options.withDescription(
    "Browser origins that may call the server from other sites: a comma-separated list (https://chat.example.com,…), " +
      "localhost (pages on this machine), or * (any site). Default: none; the server's own page needs no entry."
  )
)

/** `--allowed-hosts`. */
export const allowedHosts = Options.text("allowed-hosts").pipe(
  Options.mapEffect(parsedWith("allowed-hosts", parseAllowedHosts)),
  Options.optional,
  Options.withDescription(
    "Host names the server answers besides its listen address (name or name:port, comma-separated; * for any), " +
      "e.g. the name a reverse proxy forwards. Other Host headers get 421."
  )
)

/** `--body-timeout`. */
export const bodyTimeout = Options.integer("body-timeout").pipe(
  Options.mapEffect(atLeastOne("body-timeout")),
  Options.optional,
  Options.withDescription(
    `Seconds a whole request (headers and body) may take to arrive before the server answers 408 (default ${defaultBodyTimeoutSeconds}). Responses are not bounded by it.`
  )
)

/** `--max-client-connections`. */
export const maxClientConnections = Options.integer("max-client-connections").pipe(
  Options.mapEffect(atLeastOne("max-client-connections")),
  Options.optional,
  Options.withDescription(
    `Connections one client address may hold open at once; more are closed as they arrive (default ${defaultMaxClientConnections}).`
  )
)

/** What the guard flags parsed to. */
export interface GuardFlags {
  readonly cors: Option.Option<CorsPolicy>
  readonly allowedHosts: Option.Option<ReadonlyArray<string>>
  readonly bodyTimeout: Option.Option<number>
  readonly maxClientConnections: Option.Option<number>
}

/** The guard flags, each filled from `[SERVER]` when not given. */
export const withServerSettings = <F extends GuardFlags>(flag: F, server: ServerSettings): F => ({
  ...flag,
  cors: fill(flag.cors, server.cors),
  allowedHosts: fill(flag.allowedHosts, server.allowedHosts),
  bodyTimeout: fill(flag.bodyTimeout, server.bodyTimeout),
  maxClientConnections: fill(flag.maxClientConnections, server.maxClientConnections)
})

/** The listener's guards the flags ask for. */
export const listenGuards = (flag: GuardFlags): Pick<ListenOptions, "allowedHosts" | "bodyTimeoutSeconds" | "maxClientConnections"> => ({
  ...optionalField("allowedHosts", flag.allowedHosts),
  bodyTimeoutSeconds: Option.getOrElse(flag.bodyTimeout, () => defaultBodyTimeoutSeconds),
  maxClientConnections: Option.getOrElse(flag.maxClientConnections, () => defaultMaxClientConnections)
})
