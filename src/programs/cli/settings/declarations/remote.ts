/**
 * A remote model or agent: the endpoint, its key and the HTTP client's behaviour.
 *
 * @module
 */
import * as C from "../codec.js"
import { declare } from "../Setting.js"
import { clients, all, url } from "./common.js"

/** The remote server settings, by id, in the order `--help` and the docs list them. */
export const remoteSettings = {
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
  })
}
