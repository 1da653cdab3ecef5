/**
 * Every setting of every program, declared once. Adding a setting is one
 * entry here plus the code that uses it (in `stack.ts` or the program):
 * its flag, INI key, environment variable, `--help` line, `easyai config`
 * row and docs row follow from the entry.
 *
 * @module
 */
import { Either } from "effect"
import { isValidAlias } from "../../../domain/mcp.js"
import { isServerUrl } from "../mcpServers.js"
import { defaultIdleMinutes, defaultMaxSessions } from "../../../layers/remoteSession/AgentSessionsLive.js"
import { parseExtraBody } from "../../../domain/ClientConfig.js"
import { PresetName } from "../../../domain/Sampling.js"
import type { IsolateMode } from "../../../layers/sandbox/isolation.js"
import { checkToolEnvNames } from "../../../layers/sandbox/toolEnv.js"
import { parseNetworks } from "../../../layers/tools/web/addressPolicy.js"
import { parseAllowedHosts } from "../../server/hostPolicy.js"
import { type CorsPolicy, describeCorsPolicy, parseCorsPolicy } from "../../server/originPolicy.js"
import {
  defaultBodyTimeoutSeconds,
  defaultGraceSeconds,
  defaultHost,
  defaultMaxClientConnections,
  defaultPort,
  defaultQueueLimit,
  defaultTimeoutSeconds
} from "../../server/ServerOptions.js"
import { sessionFileName } from "../sessionFileName.js"
import * as C from "./codec.js"
import { declare, type Program } from "./Setting.js"

const local: ReadonlyArray<Program> = ["chat", "serve"]
const agents: ReadonlyArray<Program> = ["chat", "serve", "mcp"]
const toolbelts: ReadonlyArray<Program> = ["chat", "serve", "mcp", "tools"]
const clients: ReadonlyArray<Program> = ["chat", "remote", "tools"]
const servers: ReadonlyArray<Program> = ["serve", "mcp"]
const all: ReadonlyArray<Program> = ["chat", "serve", "mcp", "tools", "remote"]

/** The KV-cache element types llama.cpp takes. */
const cacheTypes = ["f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1"] as const

const networks = C.parsedBy(
  "comma-separated CIDRs",
  "CIDR,…",
  (text) => {
    const entries = text.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "")
    return Either.match(parseNetworks(entries), { onLeft: (error) => Either.left(error.message), onRight: () => Either.right(entries) })
  },
  ["192.168.1.0/24", "not-a-network"],
  (entries) => entries.join(",")
)

const cors = C.parsedBy<CorsPolicy>("*, localhost, none or comma-separated origins", "ORIGINS", parseCorsPolicy, ["localhost", "*,localhost"], describeCorsPolicy)

const json = C.parsedBy("a JSON object", "JSON", parseExtraBody, ["{\"reasoning_effort\":\"high\"}", "[1]"], (value) => JSON.stringify(value))

/** A model: a file made absolute, or a URI (`hf:…`, `https://…`) kept as written. */
const model: C.Codec<string> = {
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

const url = C.parsedBy(
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

const mcpServers = C.list("URL or command line entries, each optionally =alias", "URL|COMMAND[=ALIAS]", ["http://127.0.0.1:8090/mcp=docs", "http://[::1"], (entry) => {
  const at = entry.lastIndexOf("=")
  const target = (at > 0 && isValidAlias(entry.slice(at + 1)) ? entry.slice(0, at) : entry).trim()
  if (target === "") return `expected a URL or a command line, got ${JSON.stringify(entry)}`
  return isServerUrl(target) && !URL.canParse(target) ? `expected a valid URL, got ${JSON.stringify(entry)}` : undefined
})

const toolEnvNames = C.parsedBy(
  "comma-separated variable names",
  "NAME,…",
  (text) => checkToolEnvNames(text.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "")),
  ["GIT_AUTHOR_NAME", "EASYAI_API_KEY"],
  (entries) => entries.join(",")
)

const hosts = C.parsedBy("comma-separated host names", "HOST,…", parseAllowedHosts, ["proxy.example", "bad host"], (entries) => entries.join(","))

/** The declarations, by id. */
export const settings = {
  // General
  config: declare("config", {
    codec: C.file,
    doc: "The settings file; flags win over it, it wins over the environment.",
    defaultText: "./easyai.ini when it exists",
    topic: "general",
    programs: all,
    ini: false,
    env: "EASYAI_CONFIG"
  }),
  verbose: declare("verbose", {
    codec: C.boolean,
    doc: "Debug log lines on stderr, and a failure's full cause.",
    topic: "general",
    programs: agents,
    aliases: ["-v"],
    default: false
  }),
  logFile: declare("logFile", {
    codec: C.anyPath,
    doc: "Append every log line, debug lines included, to this file.",
    topic: "general",
    programs: agents
  }),
  // Observability: spans to a file and to an OTLP collector
  traceFile: declare("traceFile", {
    codec: C.anyPath,
    doc: "Append every span (each model turn with its events, tool calls, approvals…) to this file as JSON lines; easyai replay reads it.",
    topic: "general",
    programs: agents,
    env: "EASYAI_TRACE_FILE"
  }),
  otlp: declare("otlp", {
    codec: url,
    doc: "Export spans and metrics over OTLP/HTTP (JSON) to this collector: URL/v1/traces and URL/v1/metrics.",
    topic: "general",
    programs: agents,
    env: "EASYAI_OTLP"
  }),

  // Local model
  model: declare("model", {
    codec: model,
    doc: "A local GGUF model: a file, or a URI downloaded once (hf:<user>/<repo>/<file>.gguf).",
    topic: "model",
    programs: local,
    aliases: ["-m"],
    env: "EASYAI_MODEL"
  }),
  context: declare("context", {
    codec: C.whole(256),
    doc: "Context size in tokens.",
    defaultText: "the model's training context, or as much as memory holds",
    topic: "model",
    programs: local,
    flag: "ctx",
    aliases: ["-c", "--ctx-size"],
    iniAliases: ["ctx_size"],
    engine: true
  }),
  threads: declare("threads", {
    codec: C.whole(1),
    doc: "CPU threads for generation.",
    defaultText: "the number of cores",
    topic: "model",
    programs: local,
    aliases: ["-t"],
    engine: true
  }),
  gpuLayers: declare("gpuLayers", {
    codec: C.orAuto(C.whole(0)),
    doc: "Layers offloaded to a GPU; 0 runs on the CPU only.",
    default: "auto",
    topic: "model",
    programs: local,
    aliases: ["--ngl", "-ngl", "--n-gpu-layers"],
    ini: "ngl",
    iniAliases: ["gpu_layers"],
    engine: true
  }),
  flashAttn: declare("flashAttn", {
    codec: C.orAuto(C.boolean),
    doc: "Flash attention: on, off or auto (faster on GPUs, slower on CPUs).",
    default: false,
    topic: "model",
    programs: local,
    flagTakesValue: true,
    aliases: ["-fa"],
    engine: true
  }),
  cacheTypeK: declare("cacheTypeK", {
    codec: C.oneOf(cacheTypes),
    doc: "KV-cache key type: f32, f16, bf16, q8_0 (cuts KV memory about 3×), q4_0, q4_1, iq4_nl, q5_0 or q5_1.",
    default: "f16",
    topic: "model",
    programs: local,
    aliases: ["-ctk"],
    engine: true
  }),
  cacheTypeV: declare("cacheTypeV", {
    codec: C.oneOf(cacheTypes),
    doc: "KV-cache value type, as --cache-type-k.",
    default: "f16",
    topic: "model",
    programs: local,
    aliases: ["-ctv"],
    engine: true
  }),
  mlock: declare("mlock", {
    codec: C.boolean,
    doc: "Pin the model in RAM so it cannot be paged out.",
    default: false,
    topic: "model",
    programs: local,
    engine: true
  }),
  mmap: declare("mmap", {
    codec: C.boolean,
    doc: "Read the model file instead of mapping it.",
    defaultText: "on where supported",
    topic: "model",
    programs: local,
    flag: false,
    negation: "no-mmap",
    engine: true
  }),
  batchSize: declare("batchSize", {
    codec: C.whole(1),
    doc: "Prompt tokens evaluated per batch.",
    default: 512,
    topic: "model",
    programs: local,
    aliases: ["-b"],
    engine: true
  }),
  parallel: declare("parallel", {
    codec: C.whole(1),
    doc: "Parallel sequences: generations that run at once in the model's context.",
    default: 1,
    topic: "model",
    programs: local,
    aliases: ["--np", "-np"],
    engine: true
  }),
  ropeScaling: declare("ropeScaling", {
    codec: C.oneOf(["none", "linear", "yarn"]),
    doc: "RoPE scaling (node-llama-cpp supports only none: others are refused when the model loads).",
    default: "none",
    topic: "model",
    programs: local,
    engine: true
  }),
  ropeFreqScale: declare("ropeFreqScale", {
    codec: C.positive,
    doc: "RoPE frequency scale (refused when the model loads, like rope_scaling).",
    topic: "model",
    programs: local,
    flag: false,
    engine: true
  }),
  yarnOrigCtx: declare("yarnOrigCtx", {
    codec: C.whole(1),
    doc: "YaRN's original context (refused when the model loads, like rope_scaling).",
    topic: "model",
    programs: local,
    flag: false,
    engine: true
  }),
  splitMode: declare("splitMode", {
    codec: C.oneOf(["none", "layer", "row"]),
    doc: "Multi-GPU split (only layer is supported: others are refused when the model loads).",
    default: "layer",
    topic: "model",
    programs: local,
    aliases: ["-sm"],
    engine: true
  }),

  // Sampling
  preset: declare("preset", {
    codec: C.oneOf(PresetName.literals),
    doc: "The sampling preset: deterministic, precise, balanced, creative or wild.",
    default: "precise",
    topic: "sampling",
    programs: local,
    engine: true
  }),
  temperature: declare("temperature", {
    codec: C.numberIn(0, 5),
    doc: "Sampling temperature (over the preset's).",
    topic: "sampling",
    programs: local,
    aliases: ["--temp"],
    engine: true
  }),
  topP: declare("topP", { codec: C.numberIn(0, 1), doc: "Nucleus sampling cut.", topic: "sampling", programs: local, engine: true }),
  topK: declare("topK", { codec: C.whole(0), doc: "Keep the k most likely tokens (0: off).", topic: "sampling", programs: local, engine: true }),
  minP: declare("minP", {
    codec: C.numberIn(0, 1),
    doc: "Drop tokens below this share of the most likely one.",
    topic: "sampling",
    programs: local,
    engine: true
  }),
  repeatPenalty: declare("repeatPenalty", {
    codec: C.numberIn(0.01, 10),
    doc: "Penalty on repeated tokens (1: off).",
    default: 1.04,
    topic: "sampling",
    programs: local,
    engine: true
  }),
  frequencyPenalty: declare("frequencyPenalty", {
    codec: C.numberIn(-2, 2),
    doc: "Penalty growing with a token's frequency.",
    default: 0.05,
    topic: "sampling",
    programs: local,
    engine: true
  }),
  presencePenalty: declare("presencePenalty", {
    codec: C.numberIn(-2, 2),
    doc: "Penalty on any token already present.",
    default: 0.1,
    topic: "sampling",
    programs: local,
    engine: true
  }),
  maxTokens: declare("maxTokens", {
    codec: C.whole(1),
    doc: "The most tokens one model turn may generate.",
    defaultText: "no limit",
    topic: "sampling",
    programs: local,
    aliases: ["-n", "--n-predict"],
    engine: true
  }),
  seed: declare("seed", {
    codec: C.whole(0),
    doc: "Sampling seed, for reproducible answers.",
    defaultText: "random",
    topic: "sampling",
    programs: local,
    engine: true
  }),
  stop: declare("stop", {
    codec: C.list("stop sequences", "TEXT", ["</s>", ""]),
    doc: "Stop generating at this text; repeatable (a --url server).",
    topic: "sampling",
    programs: ["chat"],
    repeatable: true,
    engine: true
  }),
  extraBody: declare("extraBody", {
    codec: json,
    doc: "A JSON object merged into every request to a --url server.",
    topic: "remote",
    programs: ["chat"],
    env: "EASYAI_EXTRA_BODY"
  }),

  // System prompt
  system: declare("system", {
    codec: C.text,
    doc: "Replace the built-in base prompt with this text.",
    topic: "prompt",
    programs: local,
    aliases: ["-s"]
  }),
  systemFile: declare("systemFile", {
    codec: C.file,
    doc: "Read the base prompt from a file.",
    topic: "prompt",
    programs: local,
    aliases: ["--system-prompt-file"]
  }),
  builtinSystem: declare("builtinSystem", {
    codec: C.boolean,
    doc: "Drop the built-in base prompt.",
    default: true,
    topic: "prompt",
    programs: ["chat"],
    flag: false,
    negation: "no-builtin-system"
  }),
  inject: declare("inject", {
    codec: C.boolean,
    doc: "Add the date/time and memory preamble to system prompts and clock notes to user messages (--no-inject: off).",
    default: true,
    topic: "prompt",
    programs: ["serve"],
    aliases: ["--inject-datetime"],
    flagTakesValue: true,
    negation: "no-inject"
  }),
  knowledgeCutoff: declare("knowledgeCutoff", {
    codec: C.month,
    doc: "The knowledge cutoff the preamble announces.",
    default: "2024-10",
    topic: "prompt",
    programs: local
  }),
  citeSources: declare("citeSources", {
    codec: C.boolean,
    doc: "Ask the model to cite its sources.",
    default: false,
    topic: "prompt",
    programs: local
  }),

  // Tools
  sandbox: declare("sandbox", {
    codec: C.directory,
    doc: "Give the agent the file tools (and evaluate), confined to this directory.",
    topic: "tools",
    programs: toolbelts
  }),
  allowBash: declare("allowBash", {
    codec: C.boolean,
    doc: "Add the bash tool, in the sandbox (needs --sandbox).",
    default: false,
    topic: "tools",
    programs: toolbelts
  }),
  allowPython: declare("allowPython", {
    codec: C.boolean,
    doc: "Leave out the evaluate (Python) tool that --sandbox brings.",
    default: true,
    topic: "tools",
    programs: toolbelts,
    flag: false,
    negation: "no-python"
  }),
  externalTools: declare("externalTools", {
    codec: C.directory,
    doc: "Add the tools declared by EASYAI-*.tools manifests in this directory.",
    topic: "tools",
    programs: toolbelts
  }),
  memory: declare("memory", {
    codec: C.anyPath,
    doc: "Long-term memory in this directory (the knowledge tools).",
    topic: "tools",
    programs: toolbelts,
    aliases: ["--RAG"]
  }),
  skills: declare("skills", {
    codec: C.listOf(C.directory, ["/", "/no/such/directory"]),
    doc: "Skills in these directories (later ones override earlier ones by name); repeatable.",
    topic: "tools",
    programs: toolbelts,
    repeatable: true
  }),
  skillsMode: declare("skillsMode", {
    codec: C.oneOf(["readOnDemand", "full"]),
    doc: "How skills reach the model: read_skill on demand, or in full in the system prompt.",
    default: "readOnDemand",
    topic: "tools",
    programs: toolbelts
  }),
  skillCommands: declare("skillCommands", {
    codec: C.list("absolute program paths", "PATH,…", ["/usr/bin/git", "git"], (entry) =>
      entry.startsWith("/") ? undefined : `expected an absolute program path, got ${JSON.stringify(entry)}`),
    doc: "Host programs a skill's tools.json may run (absolute paths, comma-separated).",
    topic: "tools",
    programs: toolbelts
  }),
  workspace: declare("workspace", {
    codec: C.directory,
    doc: "A workspace whose AGENTS.md joins the base prompt.",
    topic: "tools",
    programs: toolbelts
  }),
  webAllow: declare("webAllow", {
    codec: networks,
    doc: "Networks the web tools may reach besides public addresses (loopback, private and metadata addresses are refused).",
    topic: "tools",
    programs: toolbelts
  }),
  isolate: declare("isolate", {
    codec: C.oneOf(["auto", "on", "off"] as const satisfies ReadonlyArray<IsolateMode>),
    doc: "How tool processes are confined: auto (a bubblewrap namespace where that works), on (refuse without it), off.",
    default: "auto",
    topic: "tools",
    programs: toolbelts
  }),
  toolEnv: declare("toolEnv", {
    codec: toolEnvNames,
    doc: "More variables for tool processes besides PATH, HOME, LANG, LC_*, TERM, TZ, USER, SHELL, TMPDIR.",
    topic: "tools",
    programs: toolbelts
  }),
  toolsMode: declare("toolsMode", {
    codec: C.oneOf(["split", "unified", "both"]),
    doc: "The fs tool surface: one tool per operation, one fs tool, or both.",
    default: "split",
    topic: "tools",
    programs: toolbelts
  }),
  tools: declare("tools", {
    codec: C.list("tool names", "NAME,…", ["datetime", ""]),
    doc: "Only these tools: a comma-separated allow-list of names.",
    topic: "tools",
    programs: ["chat", "serve", "mcp"]
  }),
  defaultTools: declare("defaultTools", {
    codec: C.boolean,
    doc: "Leave out the default tools: datetime, plan, web, tool_lookup (--sandbox tools still count).",
    default: true,
    topic: "tools",
    programs: ["chat", "serve", "tools"],
    flag: false,
    negation: "no-tools",
    negationAliases: ["--no-local-tools"]
  }),
  plan: declare("plan", {
    codec: C.boolean,
    doc: "Leave out the plan tool.",
    default: true,
    topic: "tools",
    programs: ["chat", "serve", "tools"],
    flag: false,
    negation: "no-plan"
  }),
  mcp: declare("mcp", {
    codec: mcpServers,
    doc: "Use the tools of this MCP server: a Streamable HTTP URL, or a command line that starts a stdio server, optionally =alias; repeatable (env EASYAI_MCP_API_KEY is a URL's Bearer key).",
    topic: "tools",
    programs: agents,
    repeatable: true
  }),
  mcpApiKey: declare("mcpApiKey", {
    codec: C.secret,
    doc: "Sent to the --mcp servers as a Bearer key.",
    topic: "tools",
    programs: agents,
    flag: false,
    env: "EASYAI_MCP_API_KEY"
  }),
  maxToolHops: declare("maxToolHops", {
    codec: C.whole(1),
    doc: "Tool calls the model may chain in one turn.",
    defaultText: "8, or 99999 with bash",
    topic: "tools",
    programs: local
  }),
  autoApprove: declare("autoApprove", {
    codec: C.list("names or patterns", "PATTERN,…", ["docs.*,bash", ""]),
    doc: "Tool calls that run without asking (serve: the MCP servers' tools it may call), e.g. docs.*,bash.",
    topic: "tools",
    programs: local
  }),
  yes: declare("yes", {
    codec: C.boolean,
    doc: "Approve every tool call without asking.",
    default: false,
    topic: "tools",
    programs: ["chat"],
    aliases: ["-y"]
  }),

  // Chat
  prompt: declare("prompt", {
    codec: C.text,
    doc: "Answer this once and exit: the answer on stdout, everything else on stderr.",
    topic: "chat",
    programs: ["chat"],
    aliases: ["-p"],
    ini: false
  }),
  shell: declare("shell", {
    codec: C.boolean,
    doc: "The hybrid shell: lines run in $SHELL, \"> text\" asks the model, which gets bash.",
    default: false,
    topic: "chat",
    programs: ["chat"]
  }),
  showSystemPrompt: declare("showSystemPrompt", {
    codec: C.boolean,
    doc: "Print the system prompt a session would start with, then exit.",
    default: false,
    topic: "chat",
    programs: ["chat"],
    ini: false
  }),
  continue: declare("continue", {
    codec: C.boolean,
    doc: `Continue the conversation saved in ./${sessionFileName}.`,
    default: false,
    topic: "chat",
    programs: ["chat"],
    ini: false
  }),
  localSession: declare("localSession", {
    codec: C.boolean,
    doc: `Do not save the conversation to ./${sessionFileName} after each turn.`,
    default: true,
    topic: "chat",
    programs: ["chat"],
    flag: false,
    negation: "no-local-session"
  }),
  reasoning: declare("reasoning", {
    codec: C.boolean,
    doc: "Hide the model's reasoning, <think> blocks included.",
    default: true,
    topic: "chat",
    programs: ["chat"],
    flag: false,
    negation: "no-reasoning"
  }),
  promptProgress: declare("promptProgress", {
    codec: C.boolean,
    doc: "A plain spinner: no prompt-evaluation progress (a server is asked not to stream it).",
    default: true,
    topic: "chat",
    programs: ["chat"],
    flag: false,
    negation: "no-prompt-progress"
  }),
  autoCompress: declare("autoCompress", {
    codec: C.boolean,
    doc: "Do not compress the conversation by itself when a turn filled 85% of the context.",
    default: true,
    topic: "chat",
    programs: ["chat"],
    flag: false,
    negation: "no-auto-compress"
  }),

  // Remote server
  remoteAgent: declare("remoteAgent", {
    codec: C.boolean,
    doc: "With --url (an easyai server): run the server's own agent in a session there; its tool calls are shown and asked here, Ctrl+C stops them there.",
    default: false,
    topic: "remote",
    programs: ["chat"]
  }),
  url: declare("url", {
    codec: url,
    doc: "The OpenAI-compatible server, e.g. http://127.0.0.1:8080.",
    topic: "remote",
    programs: clients,
    env: "EASYAI_URL"
  }),
  apiKey: declare("apiKey", {
    codec: C.secret,
    doc: "The API key: sent to --url, or required of clients by serve and mcp.",
    topic: "remote",
    programs: all,
    env: "EASYAI_API_KEY"
  }),
  modelName: declare("modelName", {
    codec: C.text,
    doc: "The model name sent in requests.",
    defaultText: "the server's default",
    topic: "remote",
    programs: ["chat"]
  }),
  timeout: declare("timeout", {
    codec: C.whole(1),
    doc: "Seconds without data before a request to --url fails.",
    default: 86_400,
    topic: "remote",
    programs: clients,
    env: "EASYAI_TIMEOUT"
  }),
  httpRetries: declare("httpRetries", {
    codec: C.whole(0, 100),
    doc: "Retries of a request (to --url or an --mcp server) that failed before any response.",
    default: 5,
    topic: "remote",
    programs: all,
    env: "EASYAI_HTTP_RETRIES"
  }),
  caCert: declare("caCert", {
    codec: C.file,
    doc: "Trust this PEM CA bundle for https.",
    topic: "remote",
    programs: clients,
    env: "EASYAI_CA_FILE"
  }),
  insecureTls: declare("insecureTls", {
    codec: C.boolean,
    doc: "Skip TLS certificate verification (testing only).",
    default: false,
    topic: "remote",
    programs: clients,
    env: "EASYAI_TLS_INSECURE"
  }),
  remote: declare("remote", {
    codec: C.boolean,
    doc: "List the tools of the server at --url instead.",
    default: false,
    topic: "remote",
    programs: ["tools"],
    ini: false
  }),

  // Server
  host: declare("host", {
    codec: C.text,
    doc: "The address to listen on (0.0.0.0 for every interface).",
    default: defaultHost,
    topic: "server",
    programs: servers
  }),
  port: declare("port", {
    codec: C.whole(0, 65535),
    doc: "The port to listen on (0: any free port).",
    programDefaults: { serve: defaultPort, mcp: 8090 },
    topic: "server",
    programs: servers
  }),
  stdio: declare("stdio", {
    codec: C.boolean,
    doc: "Speak MCP on stdin/stdout instead of HTTP.",
    default: false,
    topic: "server",
    programs: ["mcp"]
  }),
  sessions: declare("sessions", {
    codec: C.boolean,
    doc: "Stateless HTTP: no Mcp-Session-Id is issued or required.",
    default: true,
    topic: "server",
    programs: ["mcp"],
    flag: false,
    negation: "no-sessions"
  }),
  alias: declare("alias", {
    codec: C.text,
    doc: "The model name served at /v1/models.",
    defaultText: "the file name",
    topic: "server",
    programs: ["serve"],
    aliases: ["-a"]
  }),
  sessionsDir: declare("sessionsDir", {
    codec: C.anyPath,
    doc: "Save the agent sessions of /rpc in this directory (one folder each), so a restarted server resumes them (default: memory only).",
    topic: "server",
    programs: ["serve"]
  }),
  maxSessions: declare("maxSessions", {
    codec: C.whole(1),
    doc: "Agent sessions of /rpc held at once; one more evicts the least recently used idle one.",
    default: defaultMaxSessions,
    topic: "server",
    programs: ["serve"]
  }),
  sessionIdle: declare("sessionIdle", {
    codec: C.whole(1),
    doc: "Minutes an agent session of /rpc may stay idle before it expires.",
    default: defaultIdleMinutes,
    topic: "server",
    programs: ["serve"]
  }),
  queue: declare("queue", {
    codec: C.whole(0),
    doc: "Requests that may wait for a free slot before the server answers 503.",
    default: defaultQueueLimit,
    topic: "server",
    programs: ["serve"]
  }),
  httpTimeout: declare("httpTimeout", {
    codec: C.whole(1),
    doc: "Seconds a connection may stay silent before it is closed.",
    default: defaultTimeoutSeconds,
    topic: "server",
    programs: servers
  }),
  grace: declare("grace", {
    codec: C.whole(0),
    doc: "Seconds running streams get to finish on SIGINT/SIGTERM.",
    default: defaultGraceSeconds,
    topic: "server",
    programs: servers
  }),
  maxBody: declare("maxBody", {
    codec: C.whole(1),
    doc: "The largest request body accepted, in bytes.",
    default: 8 * 1024 * 1024,
    topic: "server",
    programs: ["serve"]
  }),
  cors: declare("cors", {
    codec: cors,
    doc: "Browser origins that may call from other sites: origins, localhost or *.",
    defaultText: "none",
    topic: "server",
    programs: servers
  }),
  allowedHosts: declare("allowedHosts", {
    codec: hosts,
    doc: "Host names answered besides the listen address (* for any); others get 421.",
    topic: "server",
    programs: servers
  }),
  bodyTimeout: declare("bodyTimeout", {
    codec: C.whole(1),
    doc: "Seconds a whole request may take to arrive before a 408.",
    default: defaultBodyTimeoutSeconds,
    topic: "server",
    programs: servers
  }),
  maxClientConnections: declare("maxClientConnections", {
    codec: C.whole(1),
    doc: "Connections one client address may hold open at once.",
    default: defaultMaxClientConnections,
    topic: "server",
    programs: servers
  }),
  webuiTitle: declare("webuiTitle", {
    codec: C.text,
    doc: "The web UI's title.",
    default: "easyai",
    topic: "server",
    programs: ["serve"]
  }),
  webuiPlaceholder: declare("webuiPlaceholder", {
    codec: C.text,
    doc: "The web UI's placeholder in the message box.",
    defaultText: "Message <title>…",
    topic: "server",
    programs: ["serve"]
  })
}
