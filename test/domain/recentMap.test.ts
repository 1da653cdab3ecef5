import { describe, expect, it } from "vitest"
import { makeRecentMap } from "../../src/domain/recentMap.js"

describe("a recent map", () => {
  it("forgets the least recently used entry, a read counting as a use", () => {
    const map = makeRecentMap<number>(2)
    map.set("a", 1)
    map.set("b", 2)
    expect(map.get("a")).toBe(1)
    map.set("c", 3)
    expect([map.get("a"), map.get("b"), map.get("c")]).toEqual([1, undefined, 3])
  })

  it("bounds the total weight, however many entries that is, and keeps nothing heavier than all of it", () => {
    const map = makeRecentMap<string>(10, (key) => key.length)
    map.set("aaaa", "x")
    map.set("bbbb", "y")
    map.set("cc", "z")
    expect([map.get("aaaa"), map.get("bbbb"), map.get("cc")]).toEqual(["x", "y", "z"])
    map.set("ddd", "w") // 13 held: the oldest (aaaa) goes
    expect([map.get("aaaa"), map.get("bbbb"), map.get("cc"), map.get("ddd")]).toEqual([undefined, "y", "z", "w"])
    expect(map.set("eeeeeeeeeee", "too heavy")).toBe("too heavy")
    expect(map.get("eeeeeeeeeee")).toBeUndefined()
    expect(map.get("bbbb")).toBe("y")
  })

  it("weighs a replaced entry once", () => {
    const map = makeRecentMap<number>(3, (_, value) => value)
    map.set("a", 2)
    map.set("a", 1)
    map.set("b", 2)
    expect([map.get("a"), map.get("b")]).toEqual([1, 2])
  })
})
