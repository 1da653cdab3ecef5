/**
 * Sampling: presets and the parameters a request may override.
 *
 * @module
 */
import { PresetName } from "../../../../domain/Sampling.js"
import * as C from "../codec.js"
import { declare } from "../Setting.js"
import { local, json } from "./common.js"

/** The sampling settings, by id, in the order `--help` and the docs list them. */
export const samplingSettings = {
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
  })
}
