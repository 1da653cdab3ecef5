import { describe, expect, it } from "@effect/vitest"
import { Either, Option, Schema } from "effect"
import { PresetName, SamplingOverrides } from "easyai"
import { defaultPreset, findPreset, parsePresetPrefix, presets, resolveSampling } from "../../src/domain/Sampling.js"

describe("presets", () => {
  it("has the five presets with their documented shapers", () => {
    expect(PresetName.literals).toEqual(["deterministic", "precise", "balanced", "creative", "wild"])
    expect({ ...presets.deterministic }).toEqual({ temperature: 0, topP: 1, topK: 1, minP: 0 })
    expect({ ...presets.precise }).toEqual({ temperature: 0.2, topP: 1, topK: 50, minP: 0.1 })
    expect({ ...presets.balanced }).toEqual({ temperature: 0.7, topP: 0.95, topK: 50, minP: 0.05 })
    expect({ ...presets.creative }).toEqual({ temperature: 1, topP: 0.95, topK: 50, minP: 0 })
    expect({ ...presets.wild }).toEqual({ temperature: 1.4, topP: 0.98, topK: 0, minP: 0 })
  })

  it("defaults to precise", () => {
    expect(defaultPreset).toBe("precise")
  })

  it("applies overrides on top of a preset", () => {
    expect({ ...resolveSampling("creative", { temperature: 0.9 }) }).toEqual({
      temperature: 0.9,
      topP: 0.95,
      topK: 50,
      minP: 0
    })
  })

  it("rejects out-of-range overrides when decoded", () => {
    const decode = Schema.decodeUnknownEither(SamplingOverrides)
    expect(Either.isRight(decode({ temperature: 0.5 }))).toBe(true)
    expect(Either.isLeft(decode({ topP: 1.5 }))).toBe(true)
    expect(Either.isLeft(decode({ topK: -1 }))).toBe(true)
  })

  it("finds presets by name, ignoring case", () => {
    expect(findPreset(" Creative ")).toEqual(Option.some("creative"))
    expect(findPreset("spicy")).toEqual(Option.none())
  })
})

describe("parsePresetPrefix", () => {
  it("peels a preset and a temperature off the line", () => {
    const parsed = parsePresetPrefix("creative 0.9 write a poem")
    expect(parsed).toEqual(Option.some({ preset: "creative", temperature: Option.some(0.9), text: "write a poem" }))
  })

  it("peels a preset alone", () => {
    expect(parsePresetPrefix("precise what is 2+2?")).toEqual(
      Option.some({ preset: "precise", temperature: Option.none(), text: "what is 2+2?" })
    )
  })

  it("treats a bare preset as a pure switch", () => {
    expect(parsePresetPrefix("  wild  ")).toEqual(Option.some({ preset: "wild", temperature: Option.none(), text: "" }))
  })

  it("takes every preset name", () => {
    for (const name of PresetName.literals) {
      expect(Option.map(parsePresetPrefix(`${name} hi`), (p) => p.preset)).toEqual(Option.some(name))
    }
  })

  it("keeps a number that is not a temperature as text", () => {
    expect(parsePresetPrefix("creative 3 little pigs")).toEqual(
      Option.some({ preset: "creative", temperature: Option.none(), text: "3 little pigs" })
    )
    expect(parsePresetPrefix("balanced -1 apples")).toEqual(
      Option.some({ preset: "balanced", temperature: Option.none(), text: "-1 apples" })
    )
  })

  it("accepts the temperature bounds and plain decimals", () => {
    expect(Option.flatMap(parsePresetPrefix("creative 0 go"), (p) => p.temperature)).toEqual(Option.some(0))
    expect(Option.flatMap(parsePresetPrefix("creative 2 go"), (p) => p.temperature)).toEqual(Option.some(2))
    expect(Option.flatMap(parsePresetPrefix("creative .5 go"), (p) => p.temperature)).toEqual(Option.some(0.5))
    expect(Option.flatMap(parsePresetPrefix("creative 1.2.3 go"), (p) => p.temperature)).toEqual(Option.none())
  })

  it("leaves ordinary sentences alone", () => {
    expect(parsePresetPrefix("Balanced diets are good")).toEqual(Option.none())
    expect(parsePresetPrefix("creativity matters")).toEqual(Option.none())
    expect(parsePresetPrefix("")).toEqual(Option.none())
  })
})
