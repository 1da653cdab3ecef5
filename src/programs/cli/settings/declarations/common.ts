/**
 * What several topics' declarations share: the groups of programs a setting
 * applies to, and the codecs of values more elaborate than a number or a word.
 *
 * @module
 */
import { Either } from "effect"
import { isValidAlias } from "../../../../domain/mcp.js"
import { isServerUrl } from "../../mcpServers.js"
import { parseExtraBody } from "../../../../domain/ClientConfig.js"
import { checkToolEnvNames } from "../../../../layers/sandbox/toolEnv.js"
import { parseNetworks } from "../../../../layers/tools/web/addressPolicy.js"
import { parseAllowedHosts } from "../../../../apps/server/hostPolicy.js"
import { type CorsPolicy, describeCorsPolicy, parseCorsPolicy } from "../../../../apps/server/originPolicy.js"
import * as C from "../codec.js"
import { type Program } from "../Setting.js"

/** The programs that load a local model. */
export const local: ReadonlyArray<Program> = ["chat", "serve"]
/** The programs that run tools for a model or a client. */
export const agents: ReadonlyArray<Program> = ["chat", "serve", "mcp"]
/** The programs that build the tool set, `easyai tools` included. */
export const toolbelts: ReadonlyArray<Program> = ["chat", "serve", "mcp", "tools"]
/** The programs that talk to a remote endpoint. */
export const clients: ReadonlyArray<Program> = ["chat", "remote", "tools"]
/** The programs that listen. */
export const servers: ReadonlyArray<Program> = ["serve", "mcp"]
/** Every program. */
export const all: ReadonlyArray<Program> = ["chat", "serve", "mcp", "tools", "remote"]

/** The KV-cache element types llama.cpp takes. */
export const cacheTypes = ["f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1"] as const

/** Comma-separated CIDRs, checked as networks. */
export const networks = C.parsedBy(
  "comma-separated CIDRs",
  "CIDR,…",
  (text) => {
    const entries = text.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "")
    return Either.match(parseNetworks(entries), { onLeft: (error) => Either.left(error.message), onRight: () => Either.right(entries) })
  },
  ["192.168.1.0/24", "not-a-network"],
  (entries) => entries.join(",")
)

/** A cross-origin policy: `*`, `localhost`, `none` or origins. */
export const cors = C.parsedBy<CorsPolicy>("*, localhost, none or comma-separated origins", "ORIGINS", parseCorsPolicy, ["localhost", "*,localhost"], describeCorsPolicy)

/** A JSON object, such as an extra request body. */
export const json = C.parsedBy("a JSON object", "JSON", parseExtraBody, ["{\"reasoning_effort\":\"high\"}", "[1]"], (value) => JSON.stringify(value))

/** A model: a file made absolute, or a URI (`hf:…`, `https://…`) kept as written. */
export const model: C.Codec<string> = {
  expected: "a GGUF file or a hf:/https:// URI",
  metavar: "FILE|URI",
  sample: ["model.gguf", ""],
  show: String,
  decode: (text, base) =>
    text.trim() === ""
      ? Either.left("expected a GGUF file or a hf:/https:// URI, got \"\"")
      : /^[a-z][a-z0-9+.-]*:/i.test(text.trim()) && !/^[a-z]:[\\/]/i.test(text.trim())
      ? Either.right(text.trim())
      : Either.right(C.resolvePath(base, text))
}

/** An http:// or https:// URL. */
export const url = C.parsedBy(
  "an http:// or https:// URL",
  "URL",
  (text) => {
    const parsed = URL.canParse(text.trim()) ? new URL(text.trim()) : undefined
    return parsed !== undefined && (parsed.protocol === "http:" || parsed.protocol === "https:")
      ? Either.right(text.trim())
      : Either.left(`expected an http:// or https:// URL, got ${JSON.stringify(text)}`)
  },
  ["http://127.0.0.1:8080", "ftp://x"],
  String
)

/** MCP servers: URLs or command lines, each optionally `=alias`. */
export const mcpServers = C.list("URL or command line entries, each optionally =alias", "URL|COMMAND[=ALIAS]", ["http://127.0.0.1:8090/mcp=docs", "http://[::1"], (entry) => {
  const at = entry.lastIndexOf("=")
  const target = (at > 0 && isValidAlias(entry.slice(at + 1)) ? entry.slice(0, at) : entry).trim()
  if (target === "") return `expected a URL or a command line, got ${JSON.stringify(entry)}`
  return isServerUrl(target) && !URL.canParse(target) ? `expected a valid URL, got ${JSON.stringify(entry)}` : undefined
})

/** Names of environment variables passed to tools. */
export const toolEnvNames = C.parsedBy(
  "comma-separated variable names",
  "NAME,…",
  (text) => checkToolEnvNames(text.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "")),
  ["GIT_AUTHOR_NAME", "EASYAI_API_KEY"],
  (entries) => entries.join(",")
)

/** Comma-separated host names a server answers to. */
export const hosts = C.parsedBy("comma-separated host names", "HOST,…", parseAllowedHosts, ["proxy.example", "bad host"], (entries) => entries.join(","))
