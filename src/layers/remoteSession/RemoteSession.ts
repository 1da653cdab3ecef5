/**
 * A `Session` that lives on an easyai server: the conversation, the agent
 * loop and the tools run there, driven from here through the agent
 * protocol (`AgentRpc`) at the server's `/rpc`. Swap it for a local session
 * with one Layer:
 *
 * ```ts
 * const session = RemoteSession.layer({ url: "http://127.0.0.1:8080", apiKey: Redacted.make(key) })
 * ```
 *
 * The server asks before each tool call; `approval` answers (every call is
 * approved by default, as in a local `SessionStack`). Interrupting a turn
 * (Ctrl+C, a timeout) stops it on the server, and its running tool.
 *
 * What cannot cross the wire: `addTool` fails (a remote session's tools
 * are the server's), and `appendSystem` sends the text once (a function is
 * rendered when it is appended, not at every refresh). The operations that
 * cannot fail locally (`history`, `reset`…) die with a `ModelError` when the
 * server cannot be reached or has forgotten the session.
 *
 * @module
 */
import { HttpClient, HttpClientError, HttpClientRequest } from "@effect/platform"
import { RpcClient, type RpcClientError, type RpcGroup, RpcSerialization } from "@effect/rpc"
import { Cause, Context, Effect, Layer, Option, Redacted, Schema, Stream } from "effect"
import { AgentRpcs, AgentSessionError, AgentSessionId, type RemoteTurnEvent } from "../../domain/AgentRpc.js"
import type { AgentEvent } from "../../domain/AgentEvent.js"
import { endpoints, type TlsOptions } from "../../domain/ClientConfig.js"
import {
  type ChatModelError,
  type ConfigurationError,
  ContextOverflow,
  ModelError,
  ToolRegistrationError
} from "../../domain/errors.js"
import type { AgentError } from "../../services/Agent.js"
import { Approval } from "../../services/Approval.js"
import { type ChatOptions, type Service, Session } from "../../services/Session.js"
import * as ApprovalLive from "../approval/ApprovalLive.js"
import * as HttpClientLive from "../http/HttpClientLive.js"

/** The session on the server: its id (to resume it later) and what only a remote session can do. */
export interface Remote {
  /** The server's id of this session; `resume` it from another process, or after a restart. */
  readonly id: string
  /** Whether an existing conversation was continued. */
  readonly resumed: boolean
  /** Stops the session's running turn, whoever started it; `true` when one was running. */
  readonly interrupt: Effect.Effect<boolean, ModelError>
  /** Ends the session on the server (its saved conversation too). */
  readonly close: Effect.Effect<void, ModelError>
}

/** The remote side of a {@link layer}. */
export class RemoteSession extends Context.Tag("easyai/RemoteSession")<RemoteSession, Remote>() {}

/** Where the server is and how to reach it. */
export interface Options {
  /** The server, e.g. `http://127.0.0.1:8080` (a trailing `/v1` is ignored); the protocol is at `<url>/rpc`. */
  readonly url: string
  /** Sent as `Authorization: Bearer <key>`. */
  readonly apiKey?: Redacted.Redacted<string> | string
  /** TLS options for `https://` servers. */
  readonly tls?: TlsOptions
}

/** How the session is opened. */
export interface SessionOptions {
  /** The id of a session to continue; a new session when absent. */
  readonly resume?: string
  /** Answers the server's approval requests; every call is approved by default. */
  readonly approval?: Layer.Layer<Approval>
}

/** The protocol's client, over any transport: `E` is the transport's failure. */
export type Client<E> = RpcClient.RpcClient<RpcGroup.Rpcs<typeof AgentRpcs>, E>

const isSessionId = Schema.is(AgentSessionId)

/** A transport failure, as a model failure: the turn could not be produced. */
const transportFailure = (error: RpcClientError.RpcClientError): ModelError => {
  const status = error.cause instanceof HttpClientError.ResponseError ? error.cause.response.status : undefined
  const detail = status === 401
    ? "the server refused the API key (401): pass the key it was started with"
    : status === 404
    ? "the server has no agent endpoint (404 at /rpc): is it an easyai server?"
    : status !== undefined
    ? `the server answered ${status} at /rpc`
    : `the server cannot be reached: ${error.message}`
  return new ModelError({ reason: "Transport", detail, cause: error })
}

/** A session-level refusal, as a model failure. */
const sessionFailure = (error: AgentSessionError): ModelError =>
  new ModelError({ reason: error.reason === "Overloaded" ? "RateLimited" : "Unavailable", detail: error.detail })

/** Any failure of a request, as the `Session` contract types it; a server-side interruption interrupts here too. */
const failure = <E>(toModel: (error: E) => ModelError) =>
(
  error: E | AgentSessionError | ChatModelError
): Effect.Effect<never, AgentError> => {
  if (error instanceof ModelError || error instanceof ContextOverflow) return Effect.fail(error)
  if (error instanceof AgentSessionError) {
    return error.reason === "Interrupted" ? Effect.interrupt : Effect.fail(sessionFailure(error))
  }
  // boundary: the protocol's own errors are matched above; what is left is the transport's `E`
  return Effect.fail(toModel(error as E))
}

/**
 * The session `options` open on `client`, as a `Session`: `toModel` says
 * how a transport failure reads. `RpcTest.makeClient(AgentRpcs)` gives an
 * in-process client (`E = never`).
 */
export const fromClient = <E>(
  client: Client<E>,
  toModel: (error: E) => ModelError,
  options: SessionOptions = {}
): Effect.Effect<Context.Context<Session | RemoteSession>, AgentError> =>
  Effect.gen(function*() {
    const fail = failure(toModel)
    const approval = yield* Effect.provide(Approval, options.approval ?? ApprovalLive.autoApprove)
    if (options.resume !== undefined && !isSessionId(options.resume)) {
      return yield* new ModelError({
        reason: "InvalidRequest",
        detail: `${JSON.stringify(options.resume)} is not a session id: the server hands out 32 lowercase hex digits`
      })
    }
    const opened = yield* client.Open(options.resume === undefined ? {} : { resume: options.resume }).pipe(Effect.catchAll(fail))
    const session = opened.id
    // The contract has no failure for these: an unreachable server or a forgotten session is a defect here.
    const must = <A, F extends E | AgentSessionError | ChatModelError>(effect: Effect.Effect<A, F>): Effect.Effect<A> => Effect.orDie(Effect.catchAll(effect, fail))

    const answer = (event: RemoteTurnEvent): Effect.Effect<Option.Option<AgentEvent>, AgentError> => {
      if (event._tag !== "ApprovalRequested") return Effect.succeed(Option.some(event))
      return approval.check(event.call).pipe(
        Effect.flatMap((decision) =>
          client.Approve({
            session,
            id: event.id,
            ...(decision._tag === "Approved" ? { approved: true } : { approved: false, reason: decision.reason.slice(0, 1000) })
          }).pipe(
            // Too late: the server stopped waiting (and denied the call) or the turn is over; the turn's stream says which.
            Effect.catchIf((error) => error instanceof AgentSessionError && error.reason === "NotFound", () => Effect.void)
          )
        ),
        Effect.catchAll(fail),
        Effect.as(Option.none())
      )
    }

    const stream = (text: string, chatOptions: ChatOptions = {}): Stream.Stream<AgentEvent, AgentError> =>
      client.Turn({ session, text, options: chatOptions }).pipe(
        Stream.catchAll((error) => Stream.fromEffect(fail(error))),
        Stream.mapEffect(answer),
        Stream.filterMap((event) => event)
      )

    const chat = (text: string, chatOptions?: ChatOptions) =>
      Stream.runLast(stream(text, chatOptions)).pipe(
        Effect.flatMap((last) =>
          Option.isSome(last) && last.value._tag === "TurnComplete"
            ? Effect.succeed(last.value)
            : Effect.dieMessage("the server's turn ended without TurnComplete")
        )
      )

    const service: Service = {
      chat,
      stream,
      history: must(client.History({ session })),
      system: must(client.System({ session })),
      renderSystem: must(client.RenderSystem({ session })),
      refreshSystem: must(client.RefreshSystem({ session })),
      setSystem: (text) => must(client.SetSystem({ session, text })),
      appendSystem: (append) => must(client.AppendSystem({ session, text: typeof append === "string" ? append : append() })),
      addTool: (tool) => Effect.fail(new ToolRegistrationError({ name: tool.spec.name, reason: "Remote" })),
      reset: must(client.Reset({ session })),
      compress: client.Compress({ session }).pipe(Effect.catchAll(fail))
    }
    const remote: Remote = {
      id: session,
      resumed: opened.resumed,
      interrupt: client.Interrupt({ session }).pipe(Effect.catchAll(fail), Effect.catchAllCause(interruptedAsTransport)),
      close: client.Close({ session }).pipe(Effect.catchAll(fail), Effect.catchAllCause(interruptedAsTransport))
    }
    return Context.make(Session, service).pipe(Context.add(RemoteSession, remote))
  })

/** `interrupt` and `close` never carry a turn's interruption: a failure is what they report. */
const interruptedAsTransport = (cause: Cause.Cause<AgentError>): Effect.Effect<never, ModelError> =>
  Option.match(Cause.failureOption(cause), {
    onNone: () => Effect.failCause(cause as Cause.Cause<never>),
    onSome: (error) => Effect.fail(error._tag === "ModelError" ? error : new ModelError({ reason: "Unavailable", detail: error.message }))
  })

/** The protocol's client over HTTP to `options.url`, for the life of the scope. */
export const httpClient = (options: Options) =>
  Effect.gen(function*() {
    const key = options.apiKey === undefined ? undefined : typeof options.apiKey === "string" ? options.apiKey : Redacted.value(options.apiKey)
    const http = (yield* HttpClientLive.make({ tls: options.tls })).pipe(
      HttpClient.filterStatusOk,
      HttpClient.mapRequest((request) => {
        const addressed = HttpClientRequest.prependUrl(request, endpoints(options.url).rpc)
        return key === undefined || key.trim() === "" ? addressed : HttpClientRequest.bearerToken(addressed, key)
      })
    )
    const protocol = yield* RpcClient.makeProtocolHttp(http).pipe(Effect.provide(RpcSerialization.layerNdjson))
    return yield* RpcClient.make(AgentRpcs).pipe(Effect.provideService(RpcClient.Protocol, protocol))
  })

/** A remote session over HTTP: opened (or resumed) when the Layer is built. */
export const layer = (
  options: Options & SessionOptions
): Layer.Layer<Session | RemoteSession, AgentError | ConfigurationError> =>
  Layer.scopedContext(Effect.flatMap(httpClient(options), (client) => fromClient(client, transportFailure, options)))
