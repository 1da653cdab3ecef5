/**
 * The flags that reach a remote OpenAI-compatible server, shared by `chat`
 * and the management commands. Each falls back to its `EASYAI_*` variable
 * (`EASYAI_URL`, `EASYAI_API_KEY`, `EASYAI_TIMEOUT`, `EASYAI_HTTP_RETRIES`,
 * `EASYAI_CA_FILE`, `EASYAI_TLS_INSECURE`) through the client's own
 * configuration.
 *
 * @module
 */
import { Options } from "@effect/cli"
import { Duration, Option, Redacted } from "effect"
import type { ClientConfig } from "../../domain/ClientConfig.js"

/** The remote server's flags. */
export const remoteFlags = {
  url: Options.text("url").pipe(
    Options.optional,
    Options.withDescription("The OpenAI-compatible server, e.g. http://127.0.0.1:8080 (env EASYAI_URL).")
  ),
  apiKey: Options.redacted("api-key").pipe(
    Options.optional,
    Options.withDescription("Sent as `Authorization: Bearer <key>` (env EASYAI_API_KEY).")
  ),
  modelName: Options.text("model-name").pipe(
    Options.optional,
    Options.withDescription("The model name sent in requests (the server's default when absent).")
  ),
  timeout: Options.integer("timeout").pipe(
    Options.optional,
    Options.withDescription("Seconds without data before a request fails (env EASYAI_TIMEOUT, default 600).")
  ),
  httpRetries: Options.integer("http-retries").pipe(
    Options.optional,
    Options.withDescription("Retries of a request that failed before any response (env EASYAI_HTTP_RETRIES, default 5).")
  ),
  caCert: Options.file("ca-cert", { exists: "yes" }).pipe(
    Options.optional,
    Options.withDescription("Trust this PEM CA bundle for https (env EASYAI_CA_FILE).")
  ),
  insecureTls: Options.boolean("insecure-tls").pipe(
    Options.withDescription("Skip TLS certificate verification (testing only; env EASYAI_TLS_INSECURE).")
  )
}

/** What the remote flags parsed to. */
export interface RemoteFlags {
  readonly url: Option.Option<string>
  readonly apiKey: Option.Option<Redacted.Redacted<string>>
  readonly modelName: Option.Option<string>
  readonly timeout: Option.Option<number>
  readonly httpRetries: Option.Option<number>
  readonly caCert: Option.Option<string>
  readonly insecureTls: boolean
}

/** The client settings the flags set; the environment fills the rest (`ClientLive.layerConfig`). */
export const clientOverrides = (flags: RemoteFlags): Partial<ClientConfig> => {
  const key = Option.filter(flags.apiKey, (value) => Redacted.value(value).trim() !== "")
  const tls = {
    ...Option.match(flags.caCert, { onNone: () => ({}), onSome: (caFile) => ({ caFile }) }),
    ...(flags.insecureTls ? { insecure: true } : {})
  }
  return {
    ...Option.match(flags.url, { onNone: () => ({}), onSome: (baseUrl) => ({ baseUrl }) }),
    ...Option.match(key, { onNone: () => ({}), onSome: (apiKey) => ({ apiKey }) }),
    ...Option.match(flags.modelName, { onNone: () => ({}), onSome: (model) => ({ model }) }),
    ...Option.match(flags.timeout, { onNone: () => ({}), onSome: (seconds) => ({ timeout: Duration.seconds(seconds) }) }),
    ...Option.match(flags.httpRetries, { onNone: () => ({}), onSome: (retries) => ({ retries }) }),
    ...(Object.keys(tls).length === 0 ? {} : { tls })
  }
}
