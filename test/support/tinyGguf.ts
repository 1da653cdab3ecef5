/**
 * Writes a tiny but valid llama-architecture GGUF: random weights, a
 * SentencePiece-style vocabulary (specials, the 256 byte tokens, a few
 * word pieces) and a chat template in its metadata. node-llama-cpp loads
 * it like any model, so the engine tests need no download and no shared
 * folder.
 */
import { Effect } from "effect"
import { FileSystem } from "@effect/platform"
import * as path from "node:path"

const GGUF_MAGIC = 0x46554747 // "GGUF", little-endian
const GGUF_VERSION = 3
const ALIGNMENT = 32

const enum ValueType {
  UINT32 = 4,
  INT32 = 5,
  FLOAT32 = 6,
  BOOL = 7,
  STRING = 8,
  ARRAY = 9
}

const F32 = 0

type Value =
  | { readonly type: "u32"; readonly value: number }
  | { readonly type: "f32"; readonly value: number }
  | { readonly type: "bool"; readonly value: boolean }
  | { readonly type: "string"; readonly value: string }
  | { readonly type: "strings"; readonly value: ReadonlyArray<string> }
  | { readonly type: "f32s"; readonly value: ReadonlyArray<number> }
  | { readonly type: "i32s"; readonly value: ReadonlyArray<number> }

/** A growable little-endian byte buffer. */
class Writer {
  private buffer = new Uint8Array(1 << 16)
  private view = new DataView(this.buffer.buffer)
  length = 0

  private reserve(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return
    let size = this.buffer.length
    while (size < this.length + bytes) size *= 2
    const next = new Uint8Array(size)
    next.set(this.buffer.subarray(0, this.length))
    this.buffer = next
    this.view = new DataView(next.buffer)
  }
  u32(n: number): void {
    this.reserve(4)
    this.view.setUint32(this.length, n, true)
    this.length += 4
  }
  i32(n: number): void {
    this.reserve(4)
    this.view.setInt32(this.length, n, true)
    this.length += 4
  }
  u64(n: number): void {
    this.reserve(8)
    this.view.setBigUint64(this.length, BigInt(n), true)
    this.length += 8
  }
  f32(n: number): void {
    this.reserve(4)
    this.view.setFloat32(this.length, n, true)
    this.length += 4
  }
  u8(n: number): void {
    this.reserve(1)
    this.view.setUint8(this.length, n)
    this.length += 1
  }
  bytes(data: Uint8Array): void {
    this.reserve(data.length)
    this.buffer.set(data, this.length)
    this.length += data.length
  }
  string(text: string): void {
    const data = new TextEncoder().encode(text)
    this.u64(data.length)
    this.bytes(data)
  }
  padTo(alignment: number): void {
    while (this.length % alignment !== 0) this.u8(0)
  }
  result(): Uint8Array {
    return this.buffer.slice(0, this.length)
  }
}

const writeValue = (w: Writer, value: Value): void => {
  switch (value.type) {
    case "u32":
      w.u32(ValueType.UINT32)
      w.u32(value.value)
      return
    case "f32":
      w.u32(ValueType.FLOAT32)
      w.f32(value.value)
      return
    case "bool":
      w.u32(ValueType.BOOL)
      w.u8(value.value ? 1 : 0)
      return
    case "string":
      w.u32(ValueType.STRING)
      w.string(value.value)
      return
    case "strings":
      w.u32(ValueType.ARRAY)
      w.u32(ValueType.STRING)
      w.u64(value.value.length)
      for (const item of value.value) w.string(item)
      return
    case "f32s":
      w.u32(ValueType.ARRAY)
      w.u32(ValueType.FLOAT32)
      w.u64(value.value.length)
      for (const item of value.value) w.f32(item)
      return
    case "i32s":
      w.u32(ValueType.ARRAY)
      w.u32(ValueType.INT32)
      w.u64(value.value.length)
      for (const item of value.value) w.i32(item)
      return
  }
}

/** A deterministic pseudo-random generator (mulberry32), so the model is the same on every run. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = seed
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** The template rendered into `tokenizer.chat_template`. */
export const tinyChatTemplate =
  "{% for message in messages %}<|{{ message['role'] }}|>\n{{ message['content'] }}</s>\n{% endfor %}" +
  "{% if add_generation_prompt %}<|assistant|>\n{% endif %}"

const wordPieces = [
  "▁the", "▁a", "▁and", "▁to", "▁of", "▁is", "▁it", "▁you", "▁I", "▁tool", "▁call",
  "▁red", "▁green", "▁blue", "▁true", "▁false", "▁name", "▁arguments",
  "{", "}", "\"", ":", ",", "[", "]", "▁", "<", ">", "|", "/"
]

const vocabulary = (): { tokens: Array<string>; scores: Array<number>; types: Array<number> } => {
  const tokens = ["<unk>", "<s>", "</s>"]
  const types = [2, 3, 3]
  for (let byte = 0; byte < 256; byte++) {
    tokens.push(`<0x${byte.toString(16).toUpperCase().padStart(2, "0")}>`)
    types.push(6)
  }
  for (const piece of wordPieces) {
    tokens.push(piece)
    types.push(1)
  }
  const scores = tokens.map((_, i) => (types[i] === 1 ? -i / 10 : 0))
  return { tokens, scores, types }
}

/** Shape of the tiny model. */
const dims = { embd: 32, heads: 4, headsKv: 2, ff: 64, layers: 2, context: 4096 }

/**
 * Builds the GGUF bytes; another `architecture` makes a well-formed file
 * llama.cpp cannot run; `options.context` is the training context it declares, and
 * `options.chatTemplate` the template it chats in.
 */
export const tinyGgufBytes = (
  seed = 7,
  architecture = "llama",
  options: { readonly context?: number; readonly chatTemplate?: string } = {}
): Uint8Array => {
  const { context = dims.context, chatTemplate = tinyChatTemplate } = options
  const { scores, tokens, types } = vocabulary()
  const vocab = tokens.length
  const headDim = dims.embd / dims.heads
  const kvDim = headDim * dims.headsKv

  const metadata: ReadonlyArray<readonly [string, Value]> = [
    ["general.architecture", { type: "string", value: architecture }],
    ["general.name", { type: "string", value: "easyai-tiny-test" }],
    ["general.alignment", { type: "u32", value: ALIGNMENT }],
    ["llama.context_length", { type: "u32", value: context }],
    ["llama.embedding_length", { type: "u32", value: dims.embd }],
    ["llama.block_count", { type: "u32", value: dims.layers }],
    ["llama.feed_forward_length", { type: "u32", value: dims.ff }],
    ["llama.attention.head_count", { type: "u32", value: dims.heads }],
    ["llama.attention.head_count_kv", { type: "u32", value: dims.headsKv }],
    ["llama.rope.dimension_count", { type: "u32", value: headDim }],
    ["llama.attention.layer_norm_rms_epsilon", { type: "f32", value: 1e-5 }],
    ["llama.vocab_size", { type: "u32", value: vocab }],
    ["tokenizer.ggml.model", { type: "string", value: "llama" }],
    ["tokenizer.ggml.tokens", { type: "strings", value: tokens }],
    ["tokenizer.ggml.scores", { type: "f32s", value: scores }],
    ["tokenizer.ggml.token_type", { type: "i32s", value: types }],
    ["tokenizer.ggml.unknown_token_id", { type: "u32", value: 0 }],
    ["tokenizer.ggml.bos_token_id", { type: "u32", value: 1 }],
    ["tokenizer.ggml.eos_token_id", { type: "u32", value: 2 }],
    ["tokenizer.ggml.add_bos_token", { type: "bool", value: true }],
    ["tokenizer.ggml.add_eos_token", { type: "bool", value: false }],
    ["tokenizer.chat_template", { type: "string", value: chatTemplate }]
  ]

  const tensors: Array<{ name: string; shape: ReadonlyArray<number>; norm: boolean }> = [
    { name: "token_embd.weight", shape: [dims.embd, vocab], norm: false },
    { name: "output_norm.weight", shape: [dims.embd], norm: true },
    { name: "output.weight", shape: [dims.embd, vocab], norm: false }
  ]
  for (let layer = 0; layer < dims.layers; layer++) {
    const blk = `blk.${layer}`
    tensors.push(
      { name: `${blk}.attn_norm.weight`, shape: [dims.embd], norm: true },
      { name: `${blk}.attn_q.weight`, shape: [dims.embd, dims.embd], norm: false },
      { name: `${blk}.attn_k.weight`, shape: [dims.embd, kvDim], norm: false },
      { name: `${blk}.attn_v.weight`, shape: [dims.embd, kvDim], norm: false },
      { name: `${blk}.attn_output.weight`, shape: [dims.embd, dims.embd], norm: false },
      { name: `${blk}.ffn_norm.weight`, shape: [dims.embd], norm: true },
      { name: `${blk}.ffn_gate.weight`, shape: [dims.embd, dims.ff], norm: false },
      { name: `${blk}.ffn_up.weight`, shape: [dims.embd, dims.ff], norm: false },
      { name: `${blk}.ffn_down.weight`, shape: [dims.ff, dims.embd], norm: false }
    )
  }

  const w = new Writer()
  w.u32(GGUF_MAGIC)
  w.u32(GGUF_VERSION)
  w.u64(tensors.length)
  w.u64(metadata.length)
  for (const [key, value] of metadata) {
    w.string(key)
    writeValue(w, value)
  }
  let offset = 0
  const sizes = tensors.map((tensor) => tensor.shape.reduce((a, b) => a * b, 1) * 4)
  tensors.forEach((tensor, i) => {
    w.string(tensor.name)
    w.u32(tensor.shape.length)
    for (const dim of tensor.shape) w.u64(dim)
    w.u32(F32)
    w.u64(offset)
    offset += Math.ceil((sizes[i] ?? 0) / ALIGNMENT) * ALIGNMENT
  })
  w.padTo(ALIGNMENT)
  const next = random(seed)
  tensors.forEach((tensor, i) => {
    const count = (sizes[i] ?? 0) / 4
    for (let j = 0; j < count; j++) w.f32(tensor.norm ? 1 : (next() - 0.5) * 0.4)
    w.padTo(ALIGNMENT)
  })
  return w.result()
}

/** Writes the tiny model into `directory` and returns its path. */
export const writeTinyGguf = (directory: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const file = path.join(directory, "easyai-tiny.gguf")
    yield* fs.writeFile(file, tinyGgufBytes())
    return file
  })
