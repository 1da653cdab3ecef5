/**
 * Tools: the sandbox, the built-in tools, external tools, MCP servers and approval.
 *
 * @module
 */
import type { IsolateMode } from "../../../../layers/sandbox/isolation.js"
import * as C from "../codec.js"
import { declare } from "../Setting.js"
import { local, agents, toolbelts, networks, mcpServers, toolEnvNames } from "./common.js"

/** The tools settings, by id, in the order `--help` and the docs list them. */
export const toolSettings = {
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
  })
}
