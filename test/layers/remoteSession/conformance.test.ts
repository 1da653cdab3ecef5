/**
 * The Session conformance suite on a local session, on a remote one through
 * @effect/rpc's in-process test client, and on a remote one over real
 * loopback HTTP to a server in another process.
 */
import { RpcTest } from "@effect/rpc"
import { Context, Effect, Exit, Layer, Ref, Scope } from "effect"
import {
  AgentRpcHandlers,
  AgentSessionsLive,
  directoryStore,
  type ModelError,
  RemoteSession,
  Session,
  SessionStack
} from "easyai"
import { AgentRpcs } from "../../../src/domain/AgentRpc.js"
import { loadSession, saveSession } from "../../../src/layers/session/sessionFile.js"
import { conversationModel } from "../../support/conversationModel.js"
import { type Server, startEntryServer } from "../../support/programProcess.js"
import { type Harness, SessionHarness, SessionKey, sessionConformance } from "../../support/sessionConformance.js"
import { tempDir } from "../../support/tempDir.js"

/** The server's side of every harness: the stack on the conversation model, bash in `root`. */
const stack = (root: string) =>
  Layer.merge(SessionStack.layer({ model: conversationModel, host: { root, bash: true }, preamble: { timeZone: "UTC" } }), conversationModel)

const local = Layer.sync(SessionHarness, (): Harness => {
  const root = tempDir()
  return {
    session: (approval, resume) =>
      Layer.unwrapEffect(Effect.gen(function*() {
        const dir = resume ?? tempDir()
        const history = yield* loadSession(dir)
        const session = SessionStack.layer({
          model: conversationModel,
          approval,
          host: { root, bash: true },
          preamble: { timeZone: "UTC" },
          session: { history }
        })
        const key = Layer.effect(SessionKey, Effect.map(Session, (live) => ({
          key: dir,
          save: Effect.flatMap(live.history, (all) => saveSession(dir, all))
        })))
        return Layer.provideMerge(key, session)
      })),
    restart: Effect.void
  }
})

const absurd = (never: never): ModelError => never

const inProcess = Layer.scoped(SessionHarness, Effect.gen(function*() {
  const root = tempDir()
  const store = directoryStore(tempDir())
  const serverSide = AgentRpcHandlers.layer().pipe(
    Layer.provide(AgentSessionsLive.layer({ store })),
    Layer.provide(stack(root))
  )
  const start = Effect.gen(function*() {
    const scope = yield* Scope.make()
    return { scope, context: yield* Layer.buildWithScope(serverSide, scope) }
  })
  const current = yield* Ref.make(yield* start)
  yield* Effect.addFinalizer(() => Effect.flatMap(Ref.get(current), ({ scope }) => Scope.close(scope, Exit.void)))
  return {
    session: (approval, resume) =>
      Layer.scopedContext(Effect.gen(function*() {
        const { context } = yield* Ref.get(current)
        const client = yield* RpcTest.makeClient(AgentRpcs).pipe(Effect.provide(context))
        const opened = yield* RemoteSession.fromClient(client, absurd, { approval, ...(resume === undefined ? {} : { resume }) })
        return Context.add(opened, SessionKey, { key: Context.get(opened, RemoteSession.RemoteSession).id, save: Effect.void })
      })),
    restart: Effect.gen(function*() {
      const old = yield* Ref.get(current)
      yield* Scope.close(old.scope, Exit.void)
      yield* Ref.set(current, yield* start)
    })
  } satisfies Harness
}))

const agentServerBanner = /^agent server · (http:\/\/127\.0\.0\.1:\d+)$/

const overHttp = Layer.scoped(SessionHarness, Effect.gen(function*() {
  const root = tempDir()
  const dir = tempDir()
  const start = Effect.gen(function*() {
    const scope = yield* Scope.make()
    const server: Server = yield* startEntryServer("test/support/agentServer.ts", [root, dir], agentServerBanner, 1).pipe(
      Scope.extend(scope)
    )
    return { scope, url: server.url }
  })
  const current = yield* Ref.make(yield* start)
  yield* Effect.addFinalizer(() => Effect.flatMap(Ref.get(current), ({ scope }) => Scope.close(scope, Exit.void)))
  return {
    session: (approval, resume) =>
      Layer.unwrapEffect(Effect.map(Ref.get(current), ({ url }) => {
        const remote = RemoteSession.layer({ url, approval, ...(resume === undefined ? {} : { resume }) })
        const key = Layer.effect(SessionKey, Effect.map(RemoteSession.RemoteSession, (opened) => ({ key: opened.id, save: Effect.void })))
        return Layer.provideMerge(key, remote)
      })),
    restart: Effect.gen(function*() {
      const old = yield* Ref.get(current)
      yield* Scope.close(old.scope, Exit.void)
      yield* Ref.set(current, yield* start)
    })
  } satisfies Harness
}))

sessionConformance("a local session (SessionStack)", local)
sessionConformance("a remote session through @effect/rpc's in-process test client", inProcess)
sessionConformance("a remote session over loopback HTTP to a server process", overHttp)
