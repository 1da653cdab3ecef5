/**
 * What the agent loop itself costs a turn: main-thread CPU per turn of
 * `Agent.run` against `ChatModel.stream` on the same paced model, side by
 * side in one run.
 *
 *   npm run bench:agent -- [--rounds=5] [--turns=300] [--deliveries=1,10,40]
 *
 * The model is scripted: it delivers `deliveries` chunks of text, one turn
 * of the event loop apart (as the engine's outlet hands a generation to its
 * reader), then its usage and finish. No model runs, so the difference is
 * the loop's own work (its span, fiber, queue, fold and closing events) and
 * nothing else; on a fast local model that work competes with generation
 * for the one main thread, and on a server with every other stream's.
 *
 * Figures (medians over the rounds, after one warm-up round; direct and
 * agent alternate who goes first): for each delivery count, CPU µs per turn
 * directly and through the agent, and their ratio; then the agent's added
 * cost per turn and per delivery, from the line through the smallest and
 * the largest count.
 *
 * Progress lines start with "# "; the last line is one JSON object.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Chunk, Effect, Layer, Stream } from "effect"
import {
  Agent,
  AgentLive,
  ApprovalLive,
  ChatModel,
  type ChatModelService,
  Finished,
  type ModelEvent,
  SystemMessage,
  TextDelta,
  ToolRegistryLive,
  Usage,
  UserMessage
} from "../src/index.js"
import { commandLine, wholeNumber } from "./commandLine.js"
import { log, median, round2 } from "./stats.js"

// ---------- options ----------
const cli = commandLine()
const rounds = wholeNumber("rounds", cli.option("rounds", "5"), 1)
const turns = wholeNumber("turns", cli.option("turns", "300"), 1)
const deliveryCounts = cli.option("deliveries", "1,10,40").split(",").map((count) => wholeNumber("deliveries", count, 1))
  .sort((a, b) => a - b)

// ---------- the paced model ----------
/** The next event-loop turn, as the engine's outlet delivers. */
const nextTurn = Effect.async<void>((resume) => {
  const timer = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(timer))
})

const pacedModel = (deliveries: number): ChatModelService => ({
  info: Effect.succeed({ name: "paced", backend: "scripted" }),
  stream: () =>
    Stream.repeatEffectChunk(Effect.as(nextTurn, Chunk.of<ModelEvent>(new TextDelta({ text: "once upon a time " })))).pipe(
      Stream.take(deliveries),
      Stream.concat(Stream.make(new Usage({ promptTokens: 16, completionTokens: deliveries * 4 }), new Finished({ reason: "stop" })))
    )
})

const agentLayer = (model: ChatModelService) =>
  AgentLive.layer().pipe(
    Layer.provideMerge(Layer.mergeAll(Layer.succeed(ChatModel, model), ToolRegistryLive.layer(), ApprovalLive.autoApprove))
  )

// ---------- measuring ----------
const messages = [new SystemMessage({ content: "You are a storyteller." }), new UserMessage({ content: "Tell me a story." })]

/** Main-thread CPU (user + system) per run of `turn`, in µs, over `turns` runs. */
const cpuPerTurn = (turn: Effect.Effect<void, unknown>) =>
  Effect.gen(function*() {
    const before = process.cpuUsage()
    for (let i = 0; i < turns; i++) yield* Effect.either(turn)
    const used = process.cpuUsage(before)
    return (used.user + used.system) / turns
  })

const measure = (deliveries: number) =>
  Effect.gen(function*() {
    const model = yield* ChatModel
    const agent = yield* Agent
    const direct = Stream.runDrain(model.stream({ messages, tools: [] }))
    const viaAgent = Stream.runDrain(agent.run({ messages }))
    const directRuns: Array<number> = []
    const agentRuns: Array<number> = []
    for (let r = -1; r < rounds; r++) {
      const [d, a] = r % 2 === 0
        ? yield* Effect.all([cpuPerTurn(direct), cpuPerTurn(viaAgent)])
        : yield* Effect.map(Effect.all([cpuPerTurn(viaAgent), cpuPerTurn(direct)]), ([a, d]) => [d, a] as const)
      if (r >= 0) {
        directRuns.push(d)
        agentRuns.push(a)
      }
    }
    const row = {
      deliveries,
      directMicros: round2(median(directRuns)),
      agentMicros: round2(median(agentRuns)),
      agentOverDirect: round2(median(agentRuns.map((a, i) => a / directRuns[i]!))),
      addedMicros: round2(median(agentRuns.map((a, i) => a - directRuns[i]!)))
    }
    log(
      `${deliveries} deliveries: direct ${row.directMicros} µs, agent ${row.agentMicros} µs CPU per turn ` +
        `(×${row.agentOverDirect}, +${row.addedMicros} µs)`
    )
    return row
  }).pipe(Effect.provide(agentLayer(pacedModel(deliveries))))

const program = Effect.gen(function*() {
  log(`rounds ${rounds}, ${turns} turns a round, deliveries ${deliveryCounts.join(", ")}`)
  const rows = yield* Effect.forEach(deliveryCounts, measure)
  const first = rows[0]
  const last = rows.at(-1)
  const perDelivery = first !== undefined && last !== undefined && last.deliveries > first.deliveries
    ? (last.addedMicros - first.addedMicros) / (last.deliveries - first.deliveries)
    : Number.NaN
  const perTurn = first === undefined ? Number.NaN : first.addedMicros - perDelivery * first.deliveries
  log(`the agent adds about ${round2(perTurn)} µs of CPU per turn and ${round2(perDelivery)} µs per delivery`)
  console.log(JSON.stringify({
    bench: "easyai-agent",
    rounds,
    turns,
    rows,
    addedMicrosPerTurn: round2(perTurn),
    addedMicrosPerDelivery: round2(perDelivery)
  }))
})

NodeRuntime.runMain(program)
