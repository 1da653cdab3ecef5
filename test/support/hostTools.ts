/**
 * Host-tool test support: the real `bash` and `evaluate` on a real sandbox
 * (either isolation path), and a look at /proc for processes a tool left
 * behind.
 */
import { Duration, Effect, Layer } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import { ToolCall, ToolRegistry, ToolRegistryLive } from "easyai"
import * as SandboxLive from "../../src/layers/sandbox/SandboxLive.js"
import { bash } from "../../src/layers/tools/bash.js"
import { evaluate } from "../../src/layers/tools/evaluate.js"
import { named } from "./tools.js"

/** The two ways tool processes run: in bubblewrap (required, so a host without it fails loudly) and the fallback. */
export const isolationPaths = [
  { path: "bubblewrap", isolate: "on" },
  { path: "fallback (isolate off)", isolate: "off" }
] as const

/** A registry holding `bash`, `evaluate` and an `fs_write` stand-in, on a real sandbox built from `options`. */
export const hostRegistry = (options: SandboxLive.Options) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const registry = yield* ToolRegistry
    yield* registry.add(named("fs_write"))
    yield* registry.add(yield* bash)
    yield* registry.add(yield* evaluate)
  })).pipe(Layer.provideMerge(Layer.merge(ToolRegistryLive.layer(), SandboxLive.layer(options))))

/** Calls a registered tool as the model would. */
export const callTool = (name: string, args: unknown) =>
  Effect.flatMap(ToolRegistry, (registry) => registry.call(new ToolCall({ id: "c", name, arguments: JSON.stringify(args) })))

/** A `sleep` duration no other process uses, to find the sleeps a test started by their argv. */
export const uniqueSleep = (): string => `1000.${String(process.pid)}${String(Math.floor(Math.random() * 1e6)).padStart(6, "0")}`

/** The processes with `marker` as one whole argument (zombies, already dead, left out). */
export const processesWith = (marker: string): ReadonlyArray<number> => {
  const found: Array<number> = []
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry)
    if (!Number.isInteger(pid)) continue
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
      if (argv.includes(marker) && stat.charAt(stat.lastIndexOf(")") + 2) !== "Z") found.push(pid)
    } catch {
      // gone
    }
  }
  return found
}

/** Polls (at most 300 × 10 ms) until `done` holds; whether it did. */
const until = (done: () => boolean): Effect.Effect<boolean> =>
  Effect.gen(function*() {
    for (let attempt = 0; attempt < 300; attempt++) {
      if (done()) return true
      yield* Effect.sleep(Duration.millis(10))
    }
    return done()
  })

/** Whether no process with `marker` is left within the poll (a SIGKILL lands asynchronously). */
export const noneLeft = (marker: string): Effect.Effect<boolean> => until(() => processesWith(marker).length === 0)

/** Whether a process with `marker` shows up within the poll. */
export const appears = (marker: string): Effect.Effect<boolean> => until(() => processesWith(marker).length > 0)
