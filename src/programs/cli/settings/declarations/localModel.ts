/**
 * The local model: the GGUF file and how llama.cpp loads and runs it.
 *
 * @module
 */
import * as C from "../codec.js"
import { declare } from "../Setting.js"
import { local, cacheTypes, model } from "./common.js"

/** The local model settings, by id, in the order `--help` and the docs list them. */
export const localModelSettings = {
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
  })
}
