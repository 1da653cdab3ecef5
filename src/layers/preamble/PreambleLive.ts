/**
 * The `Preamble` composer, with or without a memory store behind it.
 *
 * @module
 */
import { Clock, Effect, Layer, Option } from "effect"
import {
  clockNote,
  composeSystemPrompt,
  defaultKnowledgeCutoff,
  dynamicPreamble,
  type PreambleOptions
} from "../../domain/SystemPrompt.js"
import { MemoryStore } from "../../services/MemoryStore.js"
import { Preamble, type Service } from "../../services/Preamble.js"
import { makeClockNotes } from "./clockNotes.js"

const make = (memory: Option.Option<MemoryStore["Type"]>, options: Partial<PreambleOptions>): Service => {
  const defaults: PreambleOptions = {
    injectDateTime: true,
    knowledgeCutoff: defaultKnowledgeCutoff,
    knowledgeLoop: Option.isSome(memory),
    citeSources: false,
    memoryVocabulary: true,
    ...options
  }
  // One memory per composer: the notes of every conversation it stamps.
  const notes = makeClockNotes()
  const build = (overrides: Partial<PreambleOptions> = {}, toolNames: ReadonlyArray<string> = []) =>
    Effect.gen(function*() {
      const resolved = { ...defaults, ...overrides }
      const vocabulary = Option.isSome(memory) && resolved.memoryVocabulary
        ? yield* memory.value.vocabulary
        : undefined
      return dynamicPreamble(resolved, vocabulary, toolNames)
    })
  return {
    defaults,
    build,
    compose: ({ preamble, ...layers }) =>
      Effect.map(build(preamble, layers.tools.map((spec) => spec.name)), (rendered) => composeSystemPrompt({ ...layers, preamble: rendered })),
    stamp: (messages, overrides = {}) => {
      const resolved = { ...defaults, ...overrides }
      return resolved.injectDateTime
        ? Effect.map(Clock.currentTimeMillis, (now) => notes.stamp(messages, clockNote(now, resolved.timeZone)))
        : Effect.succeed(messages)
    }
  }
}

/** A composer without memory: no vocabulary block, no knowledge loop by default. */
export const layer = (options: Partial<PreambleOptions> = {}): Layer.Layer<Preamble> =>
  Layer.succeed(Preamble, make(Option.none(), options))

/** A composer that lists the memory store's vocabulary last and teaches the memory-first loop. */
export const layerWithMemory = (options: Partial<PreambleOptions> = {}): Layer.Layer<Preamble, never, MemoryStore> =>
  Layer.effect(Preamble, Effect.map(MemoryStore, (store) => make(Option.some(store), options)))
