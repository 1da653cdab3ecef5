/**
 * How a server behaves: its identity, capacity, limits, security and
 * defaults. Every field has a default that suits a single-user machine.
 *
 * @module
 */
import type { Redacted } from "effect"
import type { PresetName, SamplingOverrides } from "../../domain/Sampling.js"
import type * as AgentSessionsLive from "../../layers/remoteSession/AgentSessionsLive.js"
import type { BodyLimits } from "./jsonBody.js"
import type { CorsPolicy } from "./originPolicy.js"
import type { WebUiOptions } from "./webui.js"

/** The options of the HTTP app. */
export interface ServerOptions {
  /** The model id served at `/v1/models` and accepted in requests. Default: the model's own name. */
  readonly modelAlias?: string
  /** The model file, for `/props` and the Ollama endpoints. */
  readonly modelFile?: string
  /** Generations that run at once (the engine's parallel sequences). Default 1. */
  readonly parallel?: number
  /** Generations that may wait for a slot before the server answers 503. Default 16. */
  readonly queueLimit?: number
  /** When set, every path but `/`, `/health` and `/metrics` needs `Authorization: Bearer <key>`. */
  readonly apiKey?: Redacted.Redacted<string>
  /** The browser origins admitted cross-origin. Default: none (the server's own page is same-origin). */
  readonly cors?: CorsPolicy
  /** Body size and JSON depth limits. Default 8 MiB and 256 levels. */
  readonly limits?: Partial<BodyLimits>
  /** The sampling preset of requests that set none, until `POST /v1/preset` changes it. Default `precise`. */
  readonly preset?: PresetName
  /** Shapers of requests that set none, over the preset's (a request's own fields win). */
  readonly sampling?: SamplingOverrides
  /** `max_tokens` of requests that set none. Default: no limit. */
  readonly maxTokens?: number
  /** The base system prompt of requests that bring none. Default: the built-in one. */
  readonly system?: string
  /** Texts appended after the base system prompt, in order. */
  readonly systemAppend?: ReadonlyArray<string>
  /** Append the AUTHORITATIVE preamble (cutoff, memory) to the system prompt and the clock notes to user messages. Default true; `X-Easyai-Inject` overrides per request. */
  readonly injectPreamble?: boolean
  /** The chat page at `/`: its title and placeholder. */
  readonly webui?: WebUiOptions
  /**
   * The sessions `/rpc` keeps for remote callers: how many, how long, where
   * they are saved. Their system prompt and preset are the server's.
   */
  readonly agentSessions?: Omit<AgentSessionsLive.Options, "session">
}

/** The options of the listener around the app. */
export interface ListenOptions {
  /** Default `127.0.0.1`. */
  readonly host?: string
  /** Default 8080; 0 picks a free port. */
  readonly port?: number
  /** Read/write inactivity timeout of a connection, in seconds. Default 600. */
  readonly timeoutSeconds?: number
  /**
   * Seconds a whole request (headers and body) may take to arrive; past it
   * the server answers 408 and closes the connection. Responses are not
   * bounded by it. Default 30.
   */
  readonly bodyTimeoutSeconds?: number
  /** Connections one client address may hold open at once; more are closed as they arrive. Default 32. */
  readonly maxClientConnections?: number
  /**
   * Host names answered besides the listen address (and the loopback names
   * when listening on loopback): `name` or `name:port`; `*` answers any.
   */
  readonly allowedHosts?: ReadonlyArray<string>
  /** How long running streams may take to finish on shutdown before they are interrupted, in seconds. Default 10. */
  readonly graceSeconds?: number
}

/** The default port. */
export const defaultPort = 8080
/** The default host: loopback only. */
export const defaultHost = "127.0.0.1"
/** The default connection timeout, in seconds: long enough for a thinking model's silence. */
export const defaultTimeoutSeconds = 600
/** The default body deadline, in seconds: a request that trickles in slower is cut. */
export const defaultBodyTimeoutSeconds = 30
/** The default number of connections one client address may hold open. */
export const defaultMaxClientConnections = 32
/** The default shutdown grace, in seconds. */
export const defaultGraceSeconds = 10
/** The default queue length. */
export const defaultQueueLimit = 16
