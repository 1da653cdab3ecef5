/**
 * The servers (`easyai serve`, `easyai mcp`): listening, sessions, limits, origins and the web UI.
 *
 * @module
 */
import { defaultIdleMinutes, defaultMaxSessions } from "../../../../layers/remoteSession/AgentSessionsLive.js"
import {
  defaultBodyTimeoutSeconds,
  defaultGraceSeconds,
  defaultHost,
  defaultMaxClientConnections,
  defaultPort,
  defaultQueueLimit,
  defaultTimeoutSeconds
} from "../../../../apps/server/ServerOptions.js"
import * as C from "../codec.js"
import { declare } from "../Setting.js"
import { servers, cors, hosts } from "./common.js"

/** The server settings, by id, in the order `--help` and the docs list them. */
export const serverSettings = {
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
