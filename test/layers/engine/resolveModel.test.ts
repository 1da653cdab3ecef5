import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { isModelUri, resolveModelPath } from "../../../src/layers/engine/resolveModel.js"

describe("model sources", () => {
  it("tells URIs to download from local paths", () => {
    expect(isModelUri("hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF/qwen2.5-0.5b-instruct-q4_k_m.gguf")).toBe(true)
    expect(isModelUri("HF:user/repo:Q4_K_M")).toBe(true)
    expect(isModelUri("https://example.com/model.gguf")).toBe(true)
    expect(isModelUri("models/hf:odd-name.gguf")).toBe(false)
    expect(isModelUri("/srv/models/model.gguf")).toBe(false)
    expect(isModelUri("./https.gguf")).toBe(false)
  })

  it.effect("leaves a local path as it is, for the loader to check", () =>
    Effect.gen(function*() {
      expect(yield* resolveModelPath("/no/such/model.gguf")).toBe("/no/such/model.gguf")
    }))
})
