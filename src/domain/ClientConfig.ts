/**
 * How the remote client reaches an OpenAI-compatible server: where, with
 * which key, how patiently, and the request fields it sends by default.
 *
 * ```ts
 * const config: ClientConfig = { baseUrl: "http://ai.local:8080", model: "EasyAi", retries: 3 }
 * // or from the environment (EASYAI_URL, EASYAI_API_KEY, EASYAI_TIMEOUT, EASYAI_HTTP_RETRIES …):
 * const fromEnv = clientConfig()
 * ```
 *
 * @module
 */
import { Config, ConfigError, Duration, Either, Option, Redacted } from "effect"
import type { SamplingOverrides } from "./Sampling.js"
import { isObject, parseJson } from "./json.js"

/** TLS settings for `https://` servers. */
export interface TlsOptions {
  /** A PEM file of certificate authorities to trust (instead of the system's). */
  readonly caFile?: string
  /** Skips certificate verification entirely. For development against self-signed certificates only. */
  readonly insecure?: boolean
}

/** The penalties to send; fields left out keep the server's defaults. */
export interface PenaltyOverrides {
  /** llama.cpp `repeat_penalty`; 1 disables it. */
  readonly repeatPenalty?: number
  /** OpenAI `frequency_penalty`, from -2 to 2. */
  readonly frequencyPenalty?: number
  /** OpenAI `presence_penalty`, from -2 to 2. */
  readonly presencePenalty?: number
}

/** The configuration of the remote client. Only `baseUrl` is required. */
export interface ClientConfig {
  /**
   * The server, with or without the trailing `/v1`: `http://ai.local:8080`,
   * `https://api.openai.com/v1`. Requests go to `<root>/v1/chat/completions`.
   */
  readonly baseUrl: string
  /** Sent as `Authorization: Bearer <key>`; nothing is sent when absent. */
  readonly apiKey?: Redacted.Redacted<string>
  /** The request body's `model` field; left out when absent (llama.cpp serves its one model). */
  readonly model?: string
  /**
   * Inactivity timeout: the longest wait for the response to start and
   * between two received chunks. Every chunk resets it; it never caps a
   * long answer that keeps streaming. Default 24 hours.
   */
  readonly timeout?: Duration.DurationInput
  /** Extra attempts on transient failures before any response byte. Default 5; 0 disables retries. */
  readonly retries?: number
  /** TLS options for `https://` servers. */
  readonly tls?: TlsOptions
  /**
   * Fields merged into every chat request body last, so they override what
   * the typed settings wrote (`reasoning_effort`, `logit_bias`, provider
   * extensions).
   */
  readonly extraBody?: Readonly<Record<string, unknown>>
  /** Stop sequences sent with every request (a request's own `stop` replaces them). */
  readonly stop?: ReadonlyArray<string>
  /** `max_tokens` for every request (a request's own `maxTokens` wins). */
  readonly maxTokens?: number
  /** Sampling seed, for reproducible answers on servers that honour it. */
  readonly seed?: number
  /**
   * Whether an easyai server streams prompt-evaluation progress
   * (`easyai.prompt_progress` events, read as `PromptProgress`). Default true;
   * false asks it not to.
   */
  readonly promptProgress?: boolean
  /** Default shapers (a request's own sampling wins field by field). */
  readonly sampling?: SamplingOverrides
  /** Penalties sent with every request. */
  readonly penalties?: PenaltyOverrides
  /**
   * Whether an easyai server may add its AUTHORITATIVE preamble and clock
   * note to the conversation. Default false: the client sends
   * `X-Easyai-Inject: off`, because the side that composes the conversation
   * (a `Session`, which stamps every turn itself) is the one that stamps it,
   * and a second stamp would contradict the first. Set it for a conversation
   * composed without a `Session` that should get the server's.
   */
  readonly serverPreamble?: boolean
}

/** The default inactivity timeout: 24 hours, for multi-hour agentic sessions. */
export const defaultTimeout: Duration.Duration = Duration.hours(24)

/** The default number of retries of a transient failure. */
export const defaultRetries = 5

/** The inactivity timeout of a configuration. */
export const inactivityTimeout = (config: ClientConfig): Duration.Duration =>
  config.timeout === undefined ? defaultTimeout : Duration.decode(config.timeout)

/** The retries of a configuration. */
export const retriesOf = (config: ClientConfig): number => config.retries ?? defaultRetries

/** The URLs the client talks to. */
export interface Endpoints {
  /** The server root, without `/v1` and without a trailing slash. */
  readonly root: string
  readonly chat: string
  readonly models: string
  readonly embeddings: string
  readonly tools: string
  readonly preset: string
  readonly health: string
  readonly props: string
  readonly metrics: string
  /** easyai's agent protocol (`AgentRpc`). */
  readonly rpc: string
}

/** The endpoints under a base URL given with or without `/v1` and trailing slashes. */
export const endpoints = (baseUrl: string): Endpoints => {
  let root = baseUrl.trim()
  while (root.endsWith("/")) root = root.slice(0, -1)
  if (root.endsWith("/v1")) root = root.slice(0, -3)
  while (root.endsWith("/")) root = root.slice(0, -1)
  return {
    root,
    chat: `${root}/v1/chat/completions`,
    models: `${root}/v1/models`,
    embeddings: `${root}/v1/embeddings`,
    tools: `${root}/v1/tools`,
    preset: `${root}/v1/preset`,
    health: `${root}/health`,
    props: `${root}/props`,
    metrics: `${root}/metrics`,
    rpc: `${root}/rpc`
  }
}

/**
 * What is wrong with a configuration, as messages; empty when it can be used.
 * Checked when the client Layer is built.
 */
export const configProblems = (config: ClientConfig): ReadonlyArray<string> => {
  const problems: Array<string> = []
  const root = endpoints(config.baseUrl).root
  const url = URL.canParse(root) ? new URL(root) : undefined
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) {
    problems.push(`the base URL must be an http:// or https:// URL, got ${JSON.stringify(config.baseUrl)}`)
  }
  const retries = retriesOf(config)
  if (!Number.isInteger(retries) || retries < 0) problems.push(`retries must be a whole number of at least 0, got ${retries}`)
  if (config.timeout !== undefined) {
    const timeout = Duration.decodeUnknown(config.timeout)
    if (Option.isNone(timeout) || !Duration.greaterThan(timeout.value, Duration.zero)) {
      problems.push("the timeout must be a positive duration")
    }
  }
  if (config.maxTokens !== undefined && (!Number.isInteger(config.maxTokens) || config.maxTokens < 1)) {
    problems.push(`maxTokens must be a whole number of at least 1, got ${config.maxTokens}`)
  }
  return problems
}

/** Parses extra body text: it must be a JSON object. */
export const parseExtraBody = (text: string): Either.Either<Readonly<Record<string, unknown>>, string> => {
  return Either.flatMap(
    Either.mapLeft(parseJson(text), (message) => `the extra body is not JSON: ${message}`),
    (parsed) => isObject(parsed) ? Either.right(parsed) : Either.left("the extra body must be a JSON object, such as {\"reasoning_effort\":\"high\"}")
  )
}

const optional = <A>(config: Config.Config<A>) => Config.option(config)

const timeoutSeconds = Config.number("EASYAI_TIMEOUT").pipe(
  Config.validate({ message: "EASYAI_TIMEOUT must be a positive number of seconds", validation: (n) => n > 0 })
)

const retries = Config.integer("EASYAI_HTTP_RETRIES").pipe(
  Config.validate({ message: "EASYAI_HTTP_RETRIES must be a whole number of at least 0", validation: (n) => n >= 0 })
)

const extraBody = Config.string("EASYAI_EXTRA_BODY").pipe(
  Config.mapOrFail((text) =>
    Either.mapLeft(parseExtraBody(text), (message) => ConfigError.InvalidData(["EASYAI_EXTRA_BODY"], message))
  )
)

/**
 * The client configuration from the environment, with `overrides` (set in
 * code) taking precedence over it:
 *
 * | variable | field |
 * |---|---|
 * | `EASYAI_URL` | `baseUrl` (required unless overridden) |
 * | `EASYAI_API_KEY` | `apiKey` (an empty value means none) |
 * | `EASYAI_TIMEOUT` | `timeout`, in seconds |
 * | `EASYAI_HTTP_RETRIES` | `retries` |
 * | `EASYAI_CA_FILE` | `tls.caFile` |
 * | `EASYAI_TLS_INSECURE` | `tls.insecure` |
 * | `EASYAI_EXTRA_BODY` | `extraBody`, a JSON object |
 */
export const clientConfig = (overrides: Partial<ClientConfig> = {}): Config.Config<ClientConfig> =>
  Config.all({
    url: optional(Config.string("EASYAI_URL")),
    apiKey: optional(Config.redacted("EASYAI_API_KEY")),
    timeout: optional(timeoutSeconds),
    retries: optional(retries),
    caFile: optional(Config.string("EASYAI_CA_FILE")),
    insecure: optional(Config.boolean("EASYAI_TLS_INSECURE")),
    extraBody: optional(extraBody)
  }).pipe(Config.mapOrFail((env): Either.Either<ClientConfig, ConfigError.ConfigError> => {
    const baseUrl = overrides.baseUrl ?? Option.getOrUndefined(env.url)
    if (baseUrl === undefined || baseUrl.trim() === "") {
      return Either.left(ConfigError.MissingData(["EASYAI_URL"], "the server URL is not set: set EASYAI_URL"))
    }
    const envKey = Option.filter(env.apiKey, (key) => Redacted.value(key) !== "")
    const apiKey = overrides.apiKey ?? Option.getOrUndefined(envKey)
    const timeout = overrides.timeout ?? Option.getOrUndefined(Option.map(env.timeout, Duration.seconds))
    const retryCount = overrides.retries ?? Option.getOrUndefined(env.retries)
    const tls: TlsOptions = {
      ...Option.match(env.caFile, { onNone: () => ({}), onSome: (caFile) => ({ caFile }) }),
      ...Option.match(env.insecure, { onNone: () => ({}), onSome: (insecure) => ({ insecure }) }),
      ...overrides.tls
    }
    const body = overrides.extraBody ?? Option.getOrUndefined(env.extraBody)
    return Either.right({
      ...overrides,
      baseUrl,
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(timeout === undefined ? {} : { timeout }),
      ...(retryCount === undefined ? {} : { retries: retryCount }),
      ...(tls.caFile === undefined && tls.insecure === undefined ? {} : { tls }),
      ...(body === undefined ? {} : { extraBody: body })
    })
  }))
