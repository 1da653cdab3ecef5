/**
 * `easyai.ini`: the settings file every command reads before its flags.
 *
 * ```ini
 * [ENGINE]                  ; how local models load and sample
 * temperature = 0.2
 * context     = 8192
 *
 * [MODEL_Qwen3-Coder]       ; overrides [ENGINE] for models whose name contains "Qwen3-Coder"
 * temperature = 0.4
 *
 * [SERVER]                  ; easyai serve
 * port    = 8080
 * api_key = "s3cret;with;semicolons"
 *
 * [cli]                     ; the chat client
 * url = http://ai.local:8080
 * mcp = http://127.0.0.1:8090/mcp=docs
 * ```
 *
 * Values may be quoted; unquoted, `;` and `#` start a comment. Booleans are
 * on/off, true/false, yes/no or 1/0. Relative paths are taken from the
 * file's directory. A bad value fails with a {@link ConfigFileError} naming
 * the file, line, section and key; an unknown key or section is only a
 * warning, with the closest known name suggested.
 *
 * Precedence, highest first: command-line flags > the matching
 * `[MODEL_<pattern>]` > the command's section (`[ENGINE]`, `[SERVER]`,
 * `[cli]`) > environment variables > built-in defaults. {@link pick} applies it.
 *
 * @module
 */
import { Effect, Either, Option, Redacted, Schema } from "effect"
import ini from "ini"
import * as fs from "node:fs/promises"
import { homedir } from "node:os"
import * as path from "node:path"
import { closestNames } from "../../domain/closestNames.js"
import { isValidAlias } from "../../domain/mcp.js"
import { PresetName } from "../../domain/Sampling.js"
import { parseNetwork } from "../../layers/tools/web/addressPolicy.js"
import { parseAllowedHosts } from "../server/hostPolicy.js"
import { type CorsPolicy, parseCorsPolicy } from "../server/originPolicy.js"
import { type IsolateMode, isolateModes } from "../../layers/sandbox/isolation.js"
import { checkToolEnvNames } from "../../layers/sandbox/toolEnv.js"

/** The file looked for in the working directory when none is named. */
export const defaultFileName = "easyai.ini"

/** A settings file that cannot be read or holds a value that cannot be used. */
export class ConfigFileError extends Schema.TaggedError<ConfigFileError>()("ConfigFileError", {
  /** The file, as named by the caller. */
  file: Schema.String,
  /** 1-based; 0 when the problem has no line (the file itself). */
  line: Schema.Number,
  /** The section's name as written, without brackets; empty when none. */
  section: Schema.String,
  /** The key as written; empty when none. */
  key: Schema.String,
  detail: Schema.String
}) {
  override get message(): string {
    const where = this.line > 0 ? `${this.file}:${this.line}` : this.file
    const subject = [this.section === "" ? "" : `[${this.section}]`, this.key].filter((part) => part !== "").join(" ")
    return subject === "" ? `${where}: ${this.detail}` : `${where}: ${subject}: ${this.detail}`
  }
}

/** `[ENGINE]` and `[MODEL_<pattern>]`: how a local model loads and samples. Each field names its INI key. */
export interface EngineSettings {
  /** `temperature`: 0 to 5. */
  readonly temperature?: number
  /** `top_p`: 0 to 1. */
  readonly topP?: number
  /** `top_k`: a whole number ≥ 0 (0 disables the cut). */
  readonly topK?: number
  /** `min_p`: 0 to 1. */
  readonly minP?: number
  /** `repeat_penalty`: > 0 (1 disables it). */
  readonly repeatPenalty?: number
  /** `presence_penalty`: -2 to 2. */
  readonly presencePenalty?: number
  /** `frequency_penalty`: -2 to 2. */
  readonly frequencyPenalty?: number
  /** `max_tokens`: a whole number > 0. */
  readonly maxTokens?: number
  /** `context` (or `ctx_size`): context window in tokens, a whole number > 0. */
  readonly context?: number
  /** `threads`: a whole number > 0. */
  readonly threads?: number
  /** `ngl`: GPU layers, a whole number ≥ 0 or `auto`. */
  readonly ngl?: number | "auto"
  /** `flash_attn`: a boolean or `auto`. */
  readonly flashAttn?: boolean | "auto"
  /** `cache_type_k`: KV-cache key type, e.g. `q8_0`. */
  readonly cacheTypeK?: string
  /** `cache_type_v`: KV-cache value type. */
  readonly cacheTypeV?: string
  /** `mlock`: pin the model in RAM. */
  readonly mlock?: boolean
  /** `mmap`: map the model file. */
  readonly mmap?: boolean
  /** `preset`: a sampling preset name. */
  readonly preset?: PresetName
  /** `rope_scaling`: none, linear or yarn. */
  readonly ropeScaling?: "none" | "linear" | "yarn"
  /** `rope_freq_scale`: > 0. */
  readonly ropeFreqScale?: number
  /** `yarn_orig_ctx`: a whole number > 0. */
  readonly yarnOrigCtx?: number
  /** `split_mode`: none, layer or row. */
  readonly splitMode?: "none" | "layer" | "row"
}

/** `[SERVER]`: `easyai serve` (and, for `cors`, `allowed_hosts`, `body_timeout`, `max_client_connections`, `easyai mcp`). Each field names its INI key. */
export interface ServerSettings {
  /** `host`: the address to listen on. */
  readonly host?: string
  /** `port`: 1 to 65535, or 0 for any free port. */
  readonly port?: number
  /** `parallel`: generations at once, a whole number ≥ 1. */
  readonly parallel?: number
  /** `queue`: requests that may wait, a whole number ≥ 0. */
  readonly queue?: number
  /** `api_key`: the key clients must send. */
  readonly apiKey?: Redacted.Redacted<string>
  /** `alias`: the model name served at /v1/models. */
  readonly alias?: string
  /** `system_file`: a file holding the default system prompt (absolute). */
  readonly systemFile?: string
  /** `http_timeout`: seconds, a whole number > 0. */
  readonly httpTimeout?: number
  /** `grace`: seconds, a whole number ≥ 0. */
  readonly grace?: number
  /** `max_body`: bytes, a whole number > 0. */
  readonly maxBody?: number
  /** `cors`: `*`, `localhost`, `none` or a comma-separated list of origins, as `--cors` takes it. */
  readonly cors?: CorsPolicy
  /** `allowed_hosts`: host names answered besides the listen address, as `--allowed-hosts` takes them. */
  readonly allowedHosts?: ReadonlyArray<string>
  /** `body_timeout`: seconds a whole request may take to arrive, a whole number > 0. */
  readonly bodyTimeout?: number
  /** `max_client_connections`: connections one client address may hold, a whole number > 0. */
  readonly maxClientConnections?: number
  /** `inject`: add the date/time and memory preamble to system prompts and the clock notes to user messages. */
  readonly inject?: boolean
  /** `webui_title`: the web UI's title. */
  readonly webuiTitle?: string
  /** `webui_placeholder`: the web UI composer's placeholder. */
  readonly webuiPlaceholder?: string
  /** `web_allow`: networks the web tools may reach besides public addresses, CIDRs comma-separated. */
  readonly webAllow?: ReadonlyArray<string>
  /** `isolate`: auto, on or off, as `--isolate` takes it. */
  readonly isolate?: IsolateMode
  /** `tool_env`: variable names passed to tool processes, comma-separated. */
  readonly toolEnv?: ReadonlyArray<string>
}

/** How the chat offers tools to the model. */
export type ToolsMode = "split" | "unified" | "both"

/** `[cli]`: the chat client. Each field names its INI key. */
export interface CliSettings {
  /** `url`: the server, an http:// or https:// URL. */
  readonly url?: string
  /** `api_key`: sent as a Bearer key. */
  readonly apiKey?: Redacted.Redacted<string>
  /** `model_name`: the model name sent in requests. */
  readonly modelName?: string
  /** `timeout`: seconds, a whole number > 0. */
  readonly timeout?: number
  /** `http_retries`: a whole number ≥ 0. */
  readonly httpRetries?: number
  /** `model`: a local GGUF file (absolute), or a URI such as `hf:…` or `https://…` kept as written. */
  readonly model?: string
  /** `prompt_progress`: stream prompt-evaluation progress. */
  readonly promptProgress?: boolean
  /** `reasoning`: show the model's reasoning. */
  readonly reasoning?: boolean
  /** `auto_compress`: compress the conversation by itself when a turn filled 85% of the context. */
  readonly autoCompress?: boolean
  /** `sandbox`: the file tools' directory (absolute). */
  readonly sandbox?: string
  /** `allow_bash`: add the bash tool. */
  readonly allowBash?: boolean
  /** `memory`: the memory directory (absolute). */
  readonly memory?: string
  /** `skills`: the skills directory (absolute). */
  readonly skills?: string
  /** `external_tools`: the external tool manifests' directory (absolute). */
  readonly externalTools?: string
  /** `web_allow`: networks the web tools may reach besides public addresses, CIDRs comma-separated. */
  readonly webAllow?: ReadonlyArray<string>
  /** `tools_mode`: split, unified or both. */
  readonly toolsMode?: ToolsMode
  /** `tools`: tool names, comma-separated. */
  readonly tools?: ReadonlyArray<string>
  /** `mcp`: MCP servers as `URL` or `URL=alias`, comma-separated; feed each to `parseMcpServer`. */
  readonly mcp?: ReadonlyArray<string>
  /** `auto_approve`: patterns of tool calls approved without asking, comma-separated. */
  readonly autoApprove?: ReadonlyArray<string>
  /** `yes`: approve every tool call. */
  readonly yes?: boolean
  /** `shell`: start the hybrid shell. */
  readonly shell?: boolean
  /** `verbose`: debug log lines on stderr. */
  readonly verbose?: boolean
  /** `log_file`: append every log line to this file (absolute). */
  readonly logFile?: string
  /** `isolate`: auto, on or off, as `--isolate` takes it. */
  readonly isolate?: IsolateMode
  /** `tool_env`: variable names passed to tool processes, comma-separated. */
  readonly toolEnv?: ReadonlyArray<string>
}

/** One `[MODEL_<pattern>]` section. */
export interface ModelProfile {
  /** The text after `MODEL_`, as written; matched case-insensitively. */
  readonly pattern: string
  readonly settings: EngineSettings
}

/** A decoded `easyai.ini`: only the keys the file sets. */
export interface ConfigFile {
  /** The file read, as named (or `<cwd>/easyai.ini`); absent when there was none. */
  readonly file?: string
  readonly engine: EngineSettings
  readonly server: ServerSettings
  readonly cli: CliSettings
  /** In file order. */
  readonly models: ReadonlyArray<ModelProfile>
  /** Unknown keys and sections, as `file:line: …` lines for a person. */
  readonly warnings: ReadonlyArray<string>
}

/** No file: nothing set, nothing to warn about. */
export const emptyConfig: ConfigFile = { engine: {}, server: {}, cli: {}, models: [], warnings: [] }

// ---------------------------------------------------------------------------
// Decoders

/** A value as the INI parser gives it: one string, or the items of `key[] = …` lines. */
type RawValue = string | ReadonlyArray<string>

/** Decodes one value; on failure, the error's detail (`expected …, got "…"`). `base` anchors relative paths. */
type Decode<A> = (value: RawValue, base: string) => Either.Either<A, string>

interface Field<A> {
  /** The INI keys, canonical first (later ones are aliases). */
  readonly keys: readonly [string, ...Array<string>]
  readonly decode: Decode<A>
}

/** One field per setting of `S`, so a table cannot miss or mistype one. */
type Fields<S> = { readonly [K in keyof S]-?: Field<Exclude<S[K], undefined>> }

const field = <A>(decode: Decode<A>, key: string, ...aliases: ReadonlyArray<string>): Field<A> => ({
  keys: [key, ...aliases],
  decode
})

/** A decoder of one (not repeated) value; `parse` gives none when the text is not a valid `expected`. */
const single = <A>(expected: string, parse: (text: string, base: string) => Option.Option<A>): Decode<A> => (value, base) => {
  if (typeof value !== "string") return Either.left(`expected ${expected}, got a list of ${value.length} values`)
  return Option.match(parse(value, base), {
    onNone: () => Either.left(`expected ${expected}, got ${JSON.stringify(value)}`),
    onSome: Either.right
  })
}

const decimalPattern = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/
const wholePattern = /^[+-]?\d+$/

const parseNumber = (text: string): Option.Option<number> =>
  decimalPattern.test(text.trim()) ? Option.some(Number(text.trim())) : Option.none()

const parseWhole = (text: string): Option.Option<number> =>
  wholePattern.test(text.trim()) ? Option.filter(Option.some(Number(text.trim())), Number.isSafeInteger) : Option.none()

const numberFrom = (min: number, max: number): Decode<number> =>
  single(`a number from ${min} to ${max}`, (text) => Option.filter(parseNumber(text), (n) => n >= min && n <= max))

const positive: Decode<number> = single(
  "a number greater than 0",
  (text) => Option.filter(parseNumber(text), (n) => n > 0 && Number.isFinite(n))
)

const wholeAtLeast = (min: number): Decode<number> =>
  single(`a whole number of at least ${min}`, (text) => Option.filter(parseWhole(text), (n) => n >= min))

const port: Decode<number> = single("a port from 0 to 65535", (text) => Option.filter(parseWhole(text), (n) => n >= 0 && n <= 65535))

const truthy: ReadonlyArray<string> = ["on", "true", "yes", "1"]
const falsy: ReadonlyArray<string> = ["off", "false", "no", "0"]

const parseBoolean = (text: string): Option.Option<boolean> => {
  const word = text.trim().toLowerCase()
  return truthy.includes(word) ? Option.some(true) : falsy.includes(word) ? Option.some(false) : Option.none()
}

const booleanWords = "on/off, true/false, yes/no or 1/0"

const boolean: Decode<boolean> = single(booleanWords, parseBoolean)

const isAuto = (text: string): boolean => text.trim().toLowerCase() === "auto"

const wholeOrAuto: Decode<number | "auto"> = single<number | "auto">(
  "a whole number of at least 0 or auto",
  (text) => isAuto(text) ? Option.some("auto" as const) : Option.filter(parseWhole(text), (n) => n >= 0)
)

const booleanOrAuto: Decode<boolean | "auto"> = single<boolean | "auto">(
  `${booleanWords} or auto`,
  (text) => isAuto(text) ? Option.some("auto" as const) : parseBoolean(text)
)

/** One of `literals`, ignoring case and surrounding blanks. */
const oneOf = <const L extends ReadonlyArray<string>>(literals: L): Decode<L[number]> =>
  single(
    `one of ${literals.join(", ")}`,
    (text) => Option.fromNullable(literals.find((literal) => literal.toLowerCase() === text.trim().toLowerCase()))
  )

/** A value read by a program's own parser, which says what is wrong; repeated keys are one comma-separated list. */
const parsedBy = <A>(parse: (text: string) => Either.Either<A, string>): Decode<A> => (value) =>
  parse(typeof value === "string" ? value : value.join(","))

const nonBlank = (text: string): Option.Option<string> => text.trim() === "" ? Option.none() : Option.some(text)

const text: Decode<string> = single("a value", nonBlank)

const secret: Decode<Redacted.Redacted<string>> = single("a value", (value) => Option.map(nonBlank(value), Redacted.make))

/** `~/x` from the home directory, `x` from the file's directory. */
const resolvePath = (base: string, value: string): string => {
  const trimmed = value.trim()
  if (trimmed === "~") return homedir()
  if (trimmed.startsWith("~/")) return path.join(homedir(), trimmed.slice(2))
  return path.resolve(base, trimmed)
}

const filePath: Decode<string> = single("a path", (value, base) => Option.map(nonBlank(value), (p) => resolvePath(base, p)))

/** A URI scheme of two letters or more, so a Windows drive (`C:`) stays a path. */
const uriPattern = /^[A-Za-z][A-Za-z0-9+.-]+:/

const modelRef: Decode<string> = single(
  "a path or a URI",
  (value, base) => Option.map(nonBlank(value), (p) => uriPattern.test(p.trim()) ? p.trim() : resolvePath(base, p))
)

const isHttpUrl = (value: string): boolean =>
  URL.canParse(value) && ["http:", "https:"].includes(new URL(value).protocol)

const url: Decode<string> = single(
  "an http:// or https:// URL",
  (value) => isHttpUrl(value.trim()) ? Option.some(value.trim()) : Option.none()
)

/** Comma-separated items (also from repeated `key[] = …` lines); blanks dropped, each checked by `valid`. */
const list = (expected: string, valid: (item: string) => boolean): Decode<ReadonlyArray<string>> => (value) => {
  const items = (typeof value === "string" ? [value] : value)
    .flatMap((entry) => entry.split(","))
    .map((item) => item.trim())
    .filter((item) => item !== "")
  const bad = items.find((item) => !valid(item))
  return bad === undefined ? Either.right(items) : Either.left(`expected ${expected}, got ${JSON.stringify(bad)}`)
}

/** A network as `--web-allow` takes it: a CIDR or one address. */
const networks = list("networks in CIDR form such as 192.168.1.0/24 or fd00::/8", (item) => Either.isRight(parseNetwork(item)))

/** `URL` or `URL=alias`, read as `parseMcpServer` reads it. */
const isMcpServer = (item: string): boolean => {
  const at = item.lastIndexOf("=")
  return isHttpUrl(at > 0 && isValidAlias(item.slice(at + 1)) ? item.slice(0, at) : item)
}

const isolateSetting: Decode<IsolateMode> = oneOf(isolateModes)

/** Variable names, none of easyai's own: the sandbox refuses those, and the file should say so where it is read. */
const toolEnvSetting: Decode<ReadonlyArray<string>> = (value, base) =>
  Either.flatMap(list("variable names", () => true)(value, base), checkToolEnvNames)

// ---------------------------------------------------------------------------
// The sections' keys

const engineFields: Fields<EngineSettings> = {
  temperature: field(numberFrom(0, 5), "temperature"),
  topP: field(numberFrom(0, 1), "top_p"),
  topK: field(wholeAtLeast(0), "top_k"),
  minP: field(numberFrom(0, 1), "min_p"),
  repeatPenalty: field(positive, "repeat_penalty"),
  presencePenalty: field(numberFrom(-2, 2), "presence_penalty"),
  frequencyPenalty: field(numberFrom(-2, 2), "frequency_penalty"),
  maxTokens: field(wholeAtLeast(1), "max_tokens"),
  context: field(wholeAtLeast(1), "context", "ctx_size"),
  threads: field(wholeAtLeast(1), "threads"),
  ngl: field(wholeOrAuto, "ngl"),
  flashAttn: field(booleanOrAuto, "flash_attn"),
  cacheTypeK: field(text, "cache_type_k"),
  cacheTypeV: field(text, "cache_type_v"),
  mlock: field(boolean, "mlock"),
  mmap: field(boolean, "mmap"),
  preset: field(oneOf(PresetName.literals), "preset"),
  ropeScaling: field(oneOf(["none", "linear", "yarn"] as const), "rope_scaling"),
  ropeFreqScale: field(positive, "rope_freq_scale"),
  yarnOrigCtx: field(wholeAtLeast(1), "yarn_orig_ctx"),
  splitMode: field(oneOf(["none", "layer", "row"] as const), "split_mode")
}

const serverFields: Fields<ServerSettings> = {
  host: field(text, "host"),
  port: field(port, "port"),
  parallel: field(wholeAtLeast(1), "parallel"),
  queue: field(wholeAtLeast(0), "queue"),
  apiKey: field(secret, "api_key"),
  alias: field(text, "alias"),
  systemFile: field(filePath, "system_file"),
  httpTimeout: field(wholeAtLeast(1), "http_timeout"),
  grace: field(wholeAtLeast(0), "grace"),
  maxBody: field(wholeAtLeast(1), "max_body"),
  cors: field(parsedBy(parseCorsPolicy), "cors"),
  allowedHosts: field(parsedBy(parseAllowedHosts), "allowed_hosts"),
  bodyTimeout: field(wholeAtLeast(1), "body_timeout"),
  maxClientConnections: field(wholeAtLeast(1), "max_client_connections"),
  inject: field(boolean, "inject"),
  webuiTitle: field(text, "webui_title"),
  webuiPlaceholder: field(text, "webui_placeholder"),
  webAllow: field(networks, "web_allow"),
  isolate: field(isolateSetting, "isolate"),
  toolEnv: field(toolEnvSetting, "tool_env")
}

const cliFields: Fields<CliSettings> = {
  url: field(url, "url"),
  apiKey: field(secret, "api_key"),
  modelName: field(text, "model_name"),
  timeout: field(wholeAtLeast(1), "timeout"),
  httpRetries: field(wholeAtLeast(0), "http_retries"),
  model: field(modelRef, "model"),
  promptProgress: field(boolean, "prompt_progress"),
  reasoning: field(boolean, "reasoning"),
  autoCompress: field(boolean, "auto_compress"),
  sandbox: field(filePath, "sandbox"),
  allowBash: field(boolean, "allow_bash"),
  memory: field(filePath, "memory"),
  skills: field(filePath, "skills"),
  externalTools: field(filePath, "external_tools"),
  webAllow: field(networks, "web_allow"),
  toolsMode: field(oneOf(["split", "unified", "both"] as const), "tools_mode"),
  tools: field(list("tool names", () => true), "tools"),
  mcp: field(list("URL or URL=alias entries", isMcpServer), "mcp"),
  autoApprove: field(list("patterns", () => true), "auto_approve"),
  yes: field(boolean, "yes"),
  shell: field(boolean, "shell"),
  verbose: field(boolean, "verbose"),
  logFile: field(filePath, "log_file"),
  isolate: field(isolateSetting, "isolate"),
  toolEnv: field(toolEnvSetting, "tool_env")
}

/** The INI keys of a table, canonical names only. */
const keysOf = (fields: Readonly<Record<string, Field<unknown>>>): ReadonlyArray<string> =>
  Object.values(fields).map((entry) => entry.keys[0])

const sectionKeys: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["ENGINE", keysOf(engineFields)],
  ["SERVER", keysOf(serverFields)],
  ["cli", keysOf(cliFields)]
]

// ---------------------------------------------------------------------------
// Reading the INI text

/** One section as parsed: its name as written and its entries in order. */
interface RawSection {
  readonly name: string
  readonly entries: ReadonlyArray<readonly [string, RawValue]>
}

/** What decoding needs to know about the file. */
interface Source {
  readonly file: string
  readonly text: string
  readonly base: string
}

const headerPattern = /^\[([^\]]*)\]\s*$/
const entryPattern = /^([^=]+)(?:=.*)?$/

/**
 * The line (1-based, 0 when not found) of `key` in `section` (undefined:
 * before any section), or of the section's header when `key` is absent. The
 * `ini` package keeps no positions, so this searches the text the way it
 * reads it: headers at the start of a line, `key = value` below, the last
 * assignment winning.
 */
const lineOf = (text: string, section: string | undefined, key?: string): number => {
  let current: string | undefined = undefined
  let found = 0
  text.split(/\r\n|\r|\n/).forEach((line, index) => {
    if (line.trim() === "" || /^\s*[;#]/.test(line)) return
    const header = headerPattern.exec(line)
    if (header !== null) {
      current = ini.unsafe(header[1] ?? "")
      if (key === undefined && current === section && found === 0) found = index + 1
      return
    }
    if (key === undefined || current !== section) return
    const written = ini.unsafe(entryPattern.exec(line)?.[1] ?? "")
    if ((written.length > 2 && written.endsWith("[]") ? written.slice(0, -2) : written) === key) found = index + 1
  })
  return found
}

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const scalarText = (value: unknown): string => typeof value === "string" ? value : String(value)

/** `ini` turns `true`/`false`/`null` into JSON values and `key[]` into arrays; back to text. */
const rawValue = (value: unknown): RawValue =>
  Array.isArray(value) ? Array.from<unknown>(value).map(scalarText) : scalarText(value)

/**
 * The parsed object as flat sections. `ini` nests a section whose name has a
 * dot (`[MODEL_Qwen2.5]` → `MODEL_Qwen2` → `5`); this joins the names back.
 */
const flatten = (parsed: unknown, text: string) => {
  const globals: Array<readonly [string, RawValue]> = []
  const sections: Array<RawSection> = []
  const walk = (name: string, body: Readonly<Record<string, unknown>>): void => {
    const entries = Object.entries(body).filter(([, value]) => !isRecord(value))
    const children = Object.entries(body).filter(([, value]) => isRecord(value))
    // A name with only dotted children may be no section of its own: keep it only if its header is written.
    if (entries.length > 0 || children.length === 0 || lineOf(text, name) > 0) {
      sections.push({ name, entries: entries.map(([key, value]) => [key, rawValue(value)] as const) })
    }
    for (const [child, value] of children) if (isRecord(value)) walk(`${name}.${child}`, value)
  }
  if (isRecord(parsed)) {
    for (const [key, value] of Object.entries(parsed)) {
      if (isRecord(value)) walk(key, value)
      else globals.push([key, rawValue(value)])
    }
  }
  return { globals, sections }
}

const suggestion = (wanted: string, known: ReadonlyArray<string>): string => {
  const [best] = closestNames(wanted, known, 1)
  return best === undefined ? "" : ` (did you mean ${best}?)`
}

/** Decodes a section's entries with `fields`; unknown keys become warnings. */
const decodeSection = <S>(
  fields: Fields<S>,
  section: RawSection,
  source: Source,
  warnings: Array<string>
): Either.Either<S, ConfigFileError> => {
  const table: ReadonlyArray<readonly [string, Field<unknown>]> = Object.entries<Field<unknown>>(fields)
  const known = table.map(([, entry]) => entry.keys[0])
  const decoded: Record<string, unknown> = {}
  const setBy = new Map<string, string>()
  for (const [key, value] of section.entries) {
    const line = () => lineOf(source.text, section.name, key)
    const fail = (detail: string) =>
      Either.left(new ConfigFileError({ file: source.file, line: line(), section: section.name, key, detail }))
    const match = table.find(([, entry]) => entry.keys.includes(key.toLowerCase()))
    if (match === undefined) {
      warnings.push(`${source.file}:${line()}: [${section.name}] ${key} is not a known key${suggestion(key, known)}`)
      continue
    }
    const [name, entry] = match
    const earlier = setBy.get(name)
    if (earlier !== undefined) return fail(`${earlier} is set already: they are the same setting, keep one`)
    setBy.set(name, key)
    const result = entry.decode(value, source.base)
    if (Either.isLeft(result)) return fail(result.left)
    decoded[name] = result.right
  }
  // Each property was produced by the decoder of its own field of `S`.
  return Either.right(decoded as S)
}

/** Which known section, if any, has `key`: for the hint on a key outside any section. */
const owners = (key: string): ReadonlyArray<string> =>
  sectionKeys.filter(([, keys]) => keys.includes(key.toLowerCase())).map(([name]) => `[${name}]`)

const modelPrefix = "model_"

/**
 * Decodes the text of an `easyai.ini`. `file` names it in messages;
 * relative paths in it are resolved from `base`.
 */
export const parseConfig = (text: string, file: string, base: string): Either.Either<ConfigFile, ConfigFileError> => {
  const source: Source = { file, text: text.startsWith("\uFEFF") ? text.slice(1) : text, base }
  const parsed: unknown = ini.decode(source.text)
  const { globals, sections } = flatten(parsed, source.text)
  const warnings: Array<string> = []
  for (const [key] of globals) {
    const where = owners(key)
    const hint = where.length === 0 ? "" : ` (put it under ${where.join(" or ")})`
    warnings.push(`${file}:${lineOf(source.text, undefined, key)}: ${key} is outside any section${hint}`)
  }
  let engine: EngineSettings = {}
  let server: ServerSettings = {}
  let cli: CliSettings = {}
  const models: Array<ModelProfile> = []
  for (const section of sections) {
    const kind = section.name.toLowerCase()
    if (kind === "engine") {
      const decoded = decodeSection(engineFields, section, source, warnings)
      if (Either.isLeft(decoded)) return Either.left(decoded.left)
      engine = { ...engine, ...decoded.right }
    } else if (kind === "server") {
      const decoded = decodeSection(serverFields, section, source, warnings)
      if (Either.isLeft(decoded)) return Either.left(decoded.left)
      server = { ...server, ...decoded.right }
    } else if (kind === "cli") {
      const decoded = decodeSection(cliFields, section, source, warnings)
      if (Either.isLeft(decoded)) return Either.left(decoded.left)
      cli = { ...cli, ...decoded.right }
    } else if (kind.startsWith(modelPrefix)) {
      const decoded = decodeSection(engineFields, section, source, warnings)
      if (Either.isLeft(decoded)) return Either.left(decoded.left)
      models.push({ pattern: section.name.slice(modelPrefix.length), settings: decoded.right })
    } else {
      const [closest] = kind.startsWith("model")
        ? ["MODEL_<pattern>"]
        : closestNames(section.name, sectionKeys.map(([name]) => name), 1)
      const hint = closest === undefined ? "" : ` (did you mean [${closest}]?)`
      warnings.push(`${file}:${lineOf(source.text, section.name)}: [${section.name}] is not a known section${hint}`)
    }
  }
  return Either.right({ file, engine, server, cli, models, warnings })
}

const isNotFound = (cause: unknown): boolean =>
  typeof cause === "object" && cause !== null && "code" in cause && cause.code === "ENOENT"

/** The file's text; none when it does not exist. */
const readText = (file: string, absolute: string): Effect.Effect<Option.Option<string>, ConfigFileError> =>
  Effect.tryPromise({
    try: () =>
      fs.readFile(absolute, "utf8").then(
        Option.some,
        (cause: unknown) => isNotFound(cause) ? Option.none() : Promise.reject(cause)
      ),
    catch: (cause) =>
      new ConfigFileError({
        file,
        line: 0,
        section: "",
        key: "",
        detail: `cannot be read (${cause instanceof Error ? cause.message : String(cause)})`
      })
  })

/**
 * Reads the settings: the file `file` when given (relative to `cwd`; it must
 * exist), else `<cwd>/easyai.ini` when there is one, else {@link emptyConfig}.
 */
export const loadConfig = Effect.fn("config.load")(function*(file: string | undefined, cwd: string) {
  const named = file ?? path.join(cwd, defaultFileName)
  const absolute = path.resolve(cwd, named)
  const text = yield* readText(named, absolute)
  if (Option.isNone(text)) {
    return file === undefined
      ? emptyConfig
      : yield* new ConfigFileError({ file, line: 0, section: "", key: "", detail: "no such file" })
  }
  return yield* parseConfig(text.value, named, path.dirname(absolute))
})

/** {@link loadConfig} for a command: the `--config` flag's file (or `./easyai.ini`), its warnings logged. */
export const readSettings = (file: Option.Option<string>) =>
  Effect.tap(loadConfig(Option.getOrUndefined(file), process.cwd()), (config) => Effect.forEach(config.warnings, (warning) => Effect.logWarning(warning)))

// ---------------------------------------------------------------------------
// Per-model profiles

/** A model's settings: `[ENGINE]` with the best `[MODEL_<pattern>]` on top. */
export interface ModelMatch {
  /** The name matched: the resolved file's base name without its extension. */
  readonly name: string
  /** The pattern of the section that applied, if any. */
  readonly pattern: Option.Option<string>
  readonly settings: EngineSettings
}

/** A file extension such as `.gguf`; `Llama-3.1-8B` or `model.Q4_K_M` keep their dots. */
const extensionPattern = /^\.[A-Za-z][A-Za-z0-9]*$/

/** The name a model is matched by: base name, minus an extension. */
export const modelName = (modelPath: string): string => {
  const base = path.basename(modelPath)
  const extension = path.extname(base)
  return extensionPattern.test(extension) ? base.slice(0, -extension.length) : base
}

/** The profile whose pattern is the longest one contained in `name`, ignoring case; the first of equals. */
export const bestProfile = (models: ReadonlyArray<ModelProfile>, name: string): Option.Option<ModelProfile> => {
  const wanted = name.toLowerCase()
  return Option.fromNullable(
    models.reduce<ModelProfile | undefined>(
      (best, model) =>
        wanted.includes(model.pattern.toLowerCase()) && (best === undefined || model.pattern.length > best.pattern.length)
          ? model
          : best,
      undefined
    )
  )
}

/**
 * The settings for the model at `modelPath`: symbolic links resolved (the
 * path as given when that fails, e.g. for a URI), matched by
 * {@link modelName} against every `[MODEL_<pattern>]`, the longest match
 * overriding `[ENGINE]`.
 */
export const modelSettings = Effect.fn("config.modelSettings")(function*(config: ConfigFile, modelPath: string) {
  const real = yield* Effect.tryPromise(() => fs.realpath(modelPath)).pipe(Effect.orElseSucceed(() => modelPath))
  const name = modelName(real)
  const profile = bestProfile(config.models, name)
  const match: ModelMatch = {
    name,
    pattern: Option.map(profile, (model) => model.pattern),
    settings: Option.match(profile, {
      onNone: () => config.engine,
      onSome: (model) => ({ ...config.engine, ...model.settings })
    })
  }
  return match
})

// ---------------------------------------------------------------------------
// Precedence

/**
 * The value that applies: the flag when given, else the first layer that
 * sets one. Pass the layers in precedence order — for a local model
 * `pick(flag, model.settings.x, env)` (the model's settings already hold
 * `[MODEL_<pattern>]` over `[ENGINE]`), for the others
 * `pick(flag, config.server.x, env)` — and apply the built-in default to
 * an `undefined` result. Flags must not fall back to the environment
 * themselves, or the environment would beat the file.
 */
export const pick = <A>(flag: Option.Option<A>, ...layers: ReadonlyArray<A | undefined>): A | undefined =>
  Option.isSome(flag) ? flag.value : layers.find((layer) => layer !== undefined)
