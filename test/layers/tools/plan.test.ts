import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, Fiber, FiberStatus, Stream } from "effect"
import { ToolCall, ToolRegistry, ToolRegistryLive } from "easyai"
import { normalizePlanAction, normalizePlanStatus, PlanItem, PlanSnapshot } from "../../../src/domain/plan.js"
import { applyPlanRequest } from "../../../src/domain/planRequest.js"
import { renderPlanPlain } from "../../../src/layers/tools/planChecklist.js"
import { renderPlanAnsi } from "../../../src/programs/cli/planView.js"
import * as PlanLive from "../../../src/layers/plan/PlanLive.js"
import { planTool } from "../../../src/layers/tools/plan.js"
import { Plan } from "../../../src/services/Plan.js"

/** Invokes the `plan` tool with `args` (an object, or raw argument text). */
const call = (args: unknown) =>
  Effect.flatMap(planTool, (tool) => tool.invoke(typeof args === "string" ? args : JSON.stringify(args)))

/** Invokes the tool and expects a successful result; returns its text. */
const ok = (args: unknown) =>
  Effect.map(call(args), (result) => {
    expect(result.isError, result.content).toBe(false)
    return result.content
  })

/** Invokes the tool and expects an error result; returns its text. */
const rejected = (args: unknown) =>
  Effect.map(call(args), (result) => {
    expect(result.isError, result.content).toBe(true)
    return result.content
  })

/** The plain checklist of the current plan. */
const checklist = Effect.map(Effect.flatMap(Plan, (plan) => plan.current), renderPlanPlain)

/** Seeds the plan with `texts` as pending steps 1..n. */
const seed = (...texts: ReadonlyArray<string>) =>
  Effect.flatMap(Plan, (plan) => plan.apply({ action: "add", items: texts.map((text) => ({ text })) }))

/**
 * Starts collecting the next `n` change notifications and returns once the
 * collector is subscribed (suspended waiting for the first one), so no change
 * made afterwards can be missed. No sleeping: the collector runs as soon as
 * this fiber yields.
 */
const collectChanges = (n: number) =>
  Effect.gen(function*() {
    const plan = yield* Plan
    const fiber = yield* plan.changes.pipe(Stream.take(n), Stream.runCollect, Effect.map(Chunk.toArray), Effect.fork)
    while (!FiberStatus.isSuspended(yield* Fiber.status(fiber))) yield* Effect.yieldNow()
    return fiber
  })

const snapshotOf = (...items: ReadonlyArray<[number, string, PlanItem["status"]]>) =>
  new PlanSnapshot({ items: items.map(([id, text, status]) => new PlanItem({ id, text, status })) })

describe("plan tool", () => {
  describe("add", () => {
    it.effect("adds one step, pending by default, or with a status", () =>
      Effect.gen(function*() {
        expect(yield* ok({ action: "add", text: "read the config" })).toBe(
          "added 1 item (id 1).\n- [ ] 1. read the config"
        )
        expect(yield* ok({ action: "add", text: "fix the parser", status: "working" })).toBe(
          "added 1 item (id 2).\n- [ ] 1. read the config\n- [~] 2. fix the parser"
        )
      }).pipe(Effect.provide(PlanLive.layer)))

    it.effect("adds a batch given as a real array", () =>
      Effect.gen(function*() {
        expect(yield* ok({ action: "add", items: [{ text: "a" }, { text: "b", status: "done" }, { text: "c" }] }))
          .toBe("added 3 items (ids 1, 2, 3).\n- [ ] 1. a\n- [x] 2. b\n- [ ] 3. c")
      }).pipe(Effect.provide(PlanLive.layer)))

    it.effect("accepts items written as a JSON string, and bare strings as {text}", () =>
      Effect.gen(function*() {
        expect(yield* ok({ action: "add", items: JSON.stringify([{ text: "a" }, { text: "b" }]) })).toBe(
          "added 2 items (ids 1, 2).\n- [ ] 1. a\n- [ ] 2. b"
        )
        expect(yield* ok({ action: "add", items: ["c", "d"] })).toBe(
          "added 2 items (ids 3, 4).\n- [ ] 1. a\n- [ ] 2. b\n- [ ] 3. c\n- [ ] 4. d"
        )
        // The whole argument object stringified, with a stringified array inside.
        expect(yield* ok(JSON.stringify(JSON.stringify({ action: "add", items: "[{\"text\":\"e\"}]" })))).toContain(
          "- [ ] 5. e"
        )
      }).pipe(Effect.provide(PlanLive.layer)))

    it.effect("takes items over the single-item fields when both are given", () =>
      Effect.gen(function*() {
        expect(yield* ok({ action: "add", text: "ignored", items: [{ text: "kept" }] })).toBe(
          "added 1 item (id 1).\n- [ ] 1. kept"
        )
      }).pipe(Effect.provide(PlanLive.layer)))

    it.effect("keeps item text on one line, without control characters", () =>
      Effect.gen(function*() {
        expect(yield* ok({ action: "add", text: "  first line\nsecond\u001b[2J  " })).toBe(
          "added 1 item (id 1).\n- [ ] 1. first line second [2J"
        )
      }).pipe(Effect.provide(PlanLive.layer)))
  })

  describe("update", () => {
    it.effect("changes status or wording and keeps the id", () =>
      Effect.gen(function*() {
        yield* seed("a", "b", "c")
        expect(yield* ok({ action: "update", id: 2, status: "working" })).toBe(
          "updated item 2.\n- [ ] 1. a\n- [~] 2. b\n- [ ] 3. c"
        )
        expect(yield* ok({ action: "update", id: "3", text: "c, reworded", status: "error" })).toBe(
          "updated item 3.\n- [ ] 1. a\n- [~] 2. b\n- [!] 3. c, reworded"
        )
      }).pipe(Effect.provide(PlanLive.layer)))

    it.effect("updates a batch", () =>
      Effect.gen(function*() {
        yield* seed("a", "b", "c")
        expect(
          yield* ok({ action: "update", items: [{ id: 1, status: "done" }, { id: 2, status: "working" }, { id: 3, text: "C" }] })
        ).toBe("updated items 1, 2, 3.\n- [x] 1. a\n- [~] 2. b\n- [ ] 3. C")
      }).pipe(Effect.provide(PlanLive.layer)))
  })

  describe("delete", () => {
    it.effect("soft-deletes: the item stays, struck through, and its id is not reused", () =>
      Effect.gen(function*() {
        yield* seed("a", "b", "c")
        expect(yield* ok({ action: "delete", id: 2 })).toBe(
          "deleted item 2 (kept in the list, struck through).\n- [ ] 1. a\n- [-] 2. ~~b~~\n- [ ] 3. c"
        )
        expect(yield* ok({ action: "delete", items: [{ id: 1 }, { id: 3 }] })).toBe(
          "deleted items 1, 3 (kept in the list, struck through).\n- [-] 1. ~~a~~\n- [-] 2. ~~b~~\n- [-] 3. ~~c~~"
        )
        expect(yield* ok({ action: "add", text: "d" })).toBe(
          "added 1 item (id 4).\n- [-] 1. ~~a~~\n- [-] 2. ~~b~~\n- [-] 3. ~~c~~\n- [ ] 4. d"
        )
      }).pipe(Effect.provide(PlanLive.layer)))

    it.effect(`id "all" wipes the plan and numbering restarts at 1`, () =>
      Effect.gen(function*() {
        yield* seed("a", "b", "c")
        expect(yield* ok({ action: "delete", id: "all" })).toBe("wiped the plan: removed 3 items.")
        expect(yield* checklist).toBe("(the plan is empty)")
        expect(yield* ok({ action: "add", text: "fresh" })).toBe("added 1 item (id 1).\n- [ ] 1. fresh")
        expect(yield* ok({ action: "delete", items: [{ id: "ALL" }] })).toBe("wiped the plan: removed 1 item.")
        expect(yield* ok({ action: "delete", id: "all" })).toBe("wiped the plan (it was already empty).")
      }).pipe(Effect.provide(PlanLive.layer)))
  })

  describe("list", () => {
    it.effect("shows the counts and the checklist", () =>
      Effect.gen(function*() {
        expect(yield* ok({ action: "list" })).toBe("the plan is empty.")
        yield* seed("a", "b", "c", "d")
        yield* ok({ action: "update", items: [{ id: 1, status: "done" }, { id: 2, status: "working" }] })
        yield* ok({ action: "delete", id: 4 })
        expect(yield* ok({ action: "list" })).toBe(
          "4 items: 1 pending, 1 working, 1 done, 1 deleted.\n- [x] 1. a\n- [~] 2. b\n- [ ] 3. c\n- [-] 4. ~~d~~"
        )
      }).pipe(Effect.provide(PlanLive.layer)))
  })

  describe("synonyms", () => {
    it.effect("maps near-miss verbs and statuses to the canonical ones", () =>
      Effect.gen(function*() {
        expect(yield* ok({ action: "create", text: "a" })).toMatch(/^added 1 item \(id 1\)\./)
        expect(yield* ok({ action: "append", text: "b" })).toMatch(/^added 1 item \(id 2\)\./)
        expect(yield* ok({ action: "Insert", text: "c" })).toMatch(/^added 1 item \(id 3\)\./)
        expect(yield* ok({ action: "add_items", items: [{ text: "d" }] })).toMatch(/^added 1 item \(id 4\)\./)
        expect(yield* ok({ action: "set", id: 1, status: "in_progress" })).toMatch(/^updated item 1\.\n- \[~\] 1\. a/)
        expect(yield* ok({ action: "mark", id: 1, status: "Completed" })).toMatch(/^updated item 1\.\n- \[x\] 1\. a/)
        expect(yield* ok({ action: "change", id: 2, text: "B" })).toContain("- [ ] 2. B")
        expect(yield* ok({ action: "remove", id: 2 })).toContain("- [-] 2. ~~B~~")
        expect(yield* ok({ action: "rm", id: 3 })).toContain("- [-] 3. ~~c~~")
        for (const verb of ["show", "get", "view"]) {
          expect(yield* ok({ action: verb })).toBe(
            "4 items: 1 pending, 1 done, 2 deleted.\n- [x] 1. a\n- [-] 2. ~~B~~\n- [-] 3. ~~c~~\n- [ ] 4. d"
          )
        }
      }).pipe(Effect.provide(PlanLive.layer)))

    it.effect("takes the status a verb implies: start, done, fail, and clear wipes", () =>
      Effect.gen(function*() {
        yield* seed("a", "b", "c")
        expect(yield* ok({ action: "start", id: 1 })).toContain("- [~] 1. a")
        expect(yield* ok({ action: "done", items: [{ id: 1 }, { id: 2, status: "error" }] })).toContain(
          "- [x] 1. a\n- [!] 2. b"
        )
        expect(yield* ok({ action: "fail", id: 3 })).toContain("- [!] 3. c")
        expect(yield* ok({ action: "clear" })).toBe("wiped the plan: removed 3 items.")
      }).pipe(Effect.provide(PlanLive.layer)))

    it("normalizes words regardless of case and separators", () => {
      expect(["create", "append", "insert", "new", "ADD"].map(normalizePlanAction)).toEqual(["add", "add", "add", "add", "add"])
      expect(["remove", "rm", "del"].map(normalizePlanAction)).toEqual(["delete", "delete", "delete"])
      expect(["show", "get", "view", "show-plan"].map(normalizePlanAction)).toEqual(["list", "list", "list", "list"])
      expect(["set", "mark", "change", "edit", "modify", "update_status"].map(normalizePlanAction)).toEqual(
        ["update", "update", "update", "update", "update", "update"]
      )
      expect(normalizePlanAction("frobnicate")).toBeUndefined()
      expect(["todo", "in progress", "in-progress", "completed", "failed", "cancelled"].map(normalizePlanStatus)).toEqual(
        ["pending", "working", "working", "done", "error", "deleted"]
      )
      expect(normalizePlanStatus("maybe")).toBeUndefined()
    })
  })

  describe("action inference", () => {
    const note = (action: string) => ` (No action was given; this call was read as "${action}".)`

    it.effect("text means add, status means update, an id alone means delete, nothing means list", () =>
      Effect.gen(function*() {
        expect(yield* ok({ text: "a" })).toBe(`added 1 item (id 1).${note("add")}\n- [ ] 1. a`)
        expect(yield* ok({ items: [{ text: "b" }, { text: "c" }] })).toBe(
          `added 2 items (ids 2, 3).${note("add")}\n- [ ] 1. a\n- [ ] 2. b\n- [ ] 3. c`
        )
        expect(yield* ok({ id: 1, status: "done" })).toBe(
          `updated item 1.${note("update")}\n- [x] 1. a\n- [ ] 2. b\n- [ ] 3. c`
        )
        expect(yield* ok({ items: [{ id: 2, status: "working" }] })).toContain(`updated item 2.${note("update")}`)
        expect(yield* ok({ id: 3 })).toBe(
          `deleted item 3 (kept in the list, struck through).${note("delete")}\n- [x] 1. a\n- [~] 2. b\n- [-] 3. ~~c~~`
        )
        expect(yield* ok({ items: [{ id: 2 }] })).toContain(`deleted item 2 (kept in the list, struck through).`)
        expect(yield* ok({})).toBe(
          `3 items: 1 done, 2 deleted.${note("list")}\n- [x] 1. a\n- [-] 2. ~~b~~\n- [-] 3. ~~c~~`
        )
        // An empty action is a missing one.
        expect(yield* ok({ action: "", text: "d" })).toContain(`added 1 item (id 4).${note("add")}`)
      }).pipe(Effect.provide(PlanLive.layer)))

    it.effect("resolves text with an id by asking the plan whether the id exists", () =>
      Effect.gen(function*() {
        yield* seed("a", "b")
        // Item 2 exists: a rewording.
        expect(yield* ok({ id: 2, text: "b, reworded" })).toBe(
          `updated item 2.${note("update")}\n- [ ] 1. a\n- [ ] 2. b, reworded`
        )
        // Item 7 does not: a new step, numbered by the plan.
        expect(yield* ok({ id: 7, text: "c" })).toBe(
          `added 1 item (id 3).${note("add")}\n- [ ] 1. a\n- [ ] 2. b, reworded\n- [ ] 3. c`
        )
        expect(yield* ok({ items: [{ id: "1", text: "A" }] })).toContain(`updated item 1.${note("update")}`)
      }).pipe(Effect.provide(PlanLive.layer)))

    it("infers against the snapshot it is given", () => {
      const plan = snapshotOf([1, "a", "pending"])
      const action = (request: Parameters<typeof applyPlanRequest>[1], snapshot: PlanSnapshot) =>
        Either.map(applyPlanRequest(snapshot, request), (result) => result.action)
      expect(action({ id: 1, text: "x" }, plan)).toEqual(Either.right("update"))
      expect(action({ id: 1, text: "x" }, PlanSnapshot.empty)).toEqual(Either.right("add"))
    })
  })

  describe("batch cap", () => {
    it.effect(`rejects more than 20 items with a clear error, and accepts 20`, () =>
      Effect.gen(function*() {
        const items = (n: number) => Array.from({ length: n }, (_, i) => ({ text: `step ${i + 1}` }))
        expect(yield* rejected({ action: "add", items: items(21) })).toBe(
          "plan: at most 20 items per call, got 21. Send the rest in another call, or plan in fewer, bigger steps."
        )
        expect(yield* checklist).toBe("(the plan is empty)")
        expect(yield* ok({ action: "add", items: JSON.stringify(items(20)) })).toMatch(/^added 20 items \(ids 1, 2, .*, 20\)\./)
      }).pipe(Effect.provide(PlanLive.layer)))
  })

  describe("teaching errors", () => {
    it.effect("says what is missing and shows a correct call", () =>
      Effect.gen(function*() {
        yield* seed("a", "b")
        expect(yield* rejected({ action: "add" })).toBe(
          `plan: 'add' needs either text or items. Examples: {action:"add", text:"my step"} or {action:"add", items:[{text:"a"}, {text:"b"}]}`
        )
        expect(yield* rejected({ action: "add", text: "   " })).toBe(
          `plan: 'add' needs either text or items. Examples: {action:"add", text:"my step"} or {action:"add", items:[{text:"a"}, {text:"b"}]}`
        )
        expect(yield* rejected({ action: "add", items: [{ text: "x" }, { status: "done" }] })).toBe(
          `plan: 'add' needs text for every item; item 2 of items has none. Examples: {action:"add", text:"my step"} or {action:"add", items:[{text:"a"}, {text:"b"}]}`
        )
        expect(yield* rejected({ action: "add", id: 2, text: "b2" })).toBe(
          `plan: 'add' creates new items and numbers them itself, but item 2 already exists. To change it use {action:"update", id:2, text:"b2"}.`
        )
        expect(yield* rejected({ action: "update", status: "done" })).toBe(
          `plan: 'update' needs id (or items). Examples: {action:"update", id:2, status:"done"} or {action:"update", items:[{id:1, status:"done"}, {id:2, status:"working"}]}`
        )
        expect(yield* rejected({ action: "update", id: 2 })).toBe(
          `plan: 'update' of item 2 needs text or status (or both). Example: {action:"update", id:2, status:"done"}`
        )
        expect(yield* rejected({ action: "update", id: 9, status: "done" })).toBe(
          `plan: no item 9 in the plan; its ids are 1, 2. To create a step use {action:"add", text:"my step"}.`
        )
        expect(yield* rejected({ action: "update", items: [{ id: 1, status: "done" }, { id: 9, status: "done" }] })).toBe(
          `plan: no item 9 in the plan (item 2 of items); its ids are 1, 2. To create a step use {action:"add", text:"my step"}.`
        )
        expect(yield* rejected({ action: "update", id: 1, status: "finished-ish" })).toBe(
          `plan: unknown status "finished-ish". Use one of pending, working, done, error, deleted. Example: {action:"update", id:2, status:"done"}`
        )
        expect(yield* rejected({ action: "update", id: "all", status: "done" })).toBe(
          `plan: id "all" only works with delete (it wipes the plan). To change several items in one call use {action:"update", id:2, status:"done"} or {action:"update", items:[{id:1, status:"done"}, {id:2, status:"working"}]}`
        )
        expect(yield* rejected({ action: "delete", id: "two" })).toBe(
          `plan: id must be an item number such as 3 (or "all" to wipe the plan), got "two"; its ids are 1, 2.`
        )
        expect(yield* rejected({ action: "delete" })).toBe(
          `plan: 'delete' needs id (or items). Examples: {action:"delete", id:3}, {action:"delete", items:[{id:3}, {id:4}]} or {action:"delete", id:"all"} to wipe the plan`
        )
        expect(yield* rejected({ action: "frobnicate" })).toBe(
          `plan: unknown action "frobnicate". Use one of add, update, delete, list. Examples: {action:"add", text:"my step"} or {action:"add", items:[{text:"a"}, {text:"b"}]}; {action:"update", id:2, status:"done"} or {action:"update", items:[{id:1, status:"done"}, {id:2, status:"working"}]}; {action:"delete", id:3}; {action:"list"}`
        )
        // Nothing above changed the plan.
        expect(yield* checklist).toBe("- [ ] 1. a\n- [ ] 2. b")
      }).pipe(Effect.provide(PlanLive.layer)))

    it.effect("rejects a parameter the tool does not have with the tool's own example", () =>
      Effect.gen(function*() {
        const text = yield* rejected({ action: "add", task: "a" })
        expect(text.split("\n")[0]).toBe("plan: invalid arguments: task: is not a parameter of this tool")
        expect(text).toContain(`Example call: plan({"action":"add","text":"my step"})`)
      }).pipe(Effect.provide(PlanLive.layer)))

    it.effect("applies a batch all or nothing", () =>
      Effect.gen(function*() {
        yield* seed("a", "b")
        yield* rejected({ action: "delete", items: [{ id: 1 }, { id: 5 }] })
        yield* rejected({ action: "update", items: [{ id: 1, status: "done" }, { id: 2, status: "nope" }] })
        expect(yield* checklist).toBe("- [ ] 1. a\n- [ ] 2. b")
      }).pipe(Effect.provide(PlanLive.layer)))
  })

  describe("change notifications", () => {
    it.effect("publishes exactly one snapshot per changing call, however many items it touched", () =>
      Effect.gen(function*() {
        const plan = yield* Plan
        const changes = yield* collectChanges(4)
        yield* ok({ action: "add", items: [{ text: "a" }, { text: "b" }, { text: "c" }] })
        yield* ok({ action: "list" }) // not a change
        yield* rejected({ action: "update", id: 9, status: "done" }) // rejected: nothing changed
        yield* ok({ action: "update", items: [{ id: 1, status: "done" }, { id: 2, status: "working" }] })
        yield* ok({ action: "delete", items: [{ id: 3 }] })
        yield* plan.reset // the sentinel: a stray notification above would push it out of the first four
        const seen = yield* Fiber.join(changes)
        expect(seen.map(renderPlanPlain)).toEqual([
          "- [ ] 1. a\n- [ ] 2. b\n- [ ] 3. c",
          "- [x] 1. a\n- [~] 2. b\n- [ ] 3. c",
          "- [x] 1. a\n- [~] 2. b\n- [-] 3. ~~c~~",
          "(the plan is empty)"
        ])
      }).pipe(Effect.provide(PlanLive.layer)))

    it.effect("serves every subscriber", () =>
      Effect.gen(function*() {
        const first = yield* collectChanges(1)
        const second = yield* collectChanges(1)
        yield* ok({ action: "add", text: "a" })
        const expected = [snapshotOf([1, "a", "pending"])]
        expect(yield* Fiber.join(first)).toEqual(expected)
        expect(yield* Fiber.join(second)).toEqual(expected)
      }).pipe(Effect.provide(PlanLive.layer)))
  })

  describe("the service", () => {
    it.effect("lets a program seed and read the plan; reset drops everything", () =>
      Effect.gen(function*() {
        const plan = yield* Plan
        const result = yield* plan.apply({ action: "add", items: ["fetch listing", "triage", "draft digest"] })
        expect(result).toMatchObject({ action: "add", inferred: false, changed: true, ids: [1, 2, 3] })
        yield* plan.apply({ action: "update", id: 2, text: "triage by citations", status: "working" })
        expect(yield* plan.current).toEqual(
          snapshotOf([1, "fetch listing", "pending"], [2, "triage by citations", "working"], [3, "draft digest", "pending"])
        )
        const failure = yield* Effect.flip(plan.apply({ action: "update", id: 7, status: "done" }))
        expect(failure._tag).toBe("PlanError")
        expect(failure.reason).toBe("UnknownId")
        yield* plan.reset
        expect(yield* plan.current).toEqual(PlanSnapshot.empty)
        expect((yield* plan.apply({ action: "add", text: "again" })).ids).toEqual([1])
      }).pipe(Effect.provide(PlanLive.layer)))
  })

  describe("rendering", () => {
    const plan = snapshotOf(
      [1, "pending step", "pending"],
      [2, "working step", "working"],
      [3, "done step", "done"],
      [4, "failed step", "error"],
      [5, "dropped step", "deleted"]
    )

    it("renders a plain markdown checklist for the model", () => {
      expect(renderPlanPlain(plan)).toBe(
        [
          "- [ ] 1. pending step",
          "- [~] 2. working step",
          "- [x] 3. done step",
          "- [!] 4. failed step",
          "- [-] 5. ~~dropped step~~"
        ].join("\n")
      )
      expect(renderPlanPlain(PlanSnapshot.empty)).toBe("(the plan is empty)")
    })

    it("renders ANSI for a terminal: bold, bold cyan, dim, red, dim struck through", () => {
      expect(renderPlanAnsi(plan).split("\n")).toEqual([
        "\u001b[1m[ ] 1. pending step\u001b[0m",
        "\u001b[1;36m[~] 2. working step\u001b[0m",
        "\u001b[2m[x] 3. done step\u001b[0m",
        "\u001b[31m[!] 4. failed step\u001b[0m",
        "\u001b[2m[-] 5. \u001b[9mdropped step\u001b[0m"
      ])
      expect(renderPlanAnsi(PlanSnapshot.empty)).toBe("\u001b[2m(the plan is empty)\u001b[0m")
    })
  })

  describe("the tool as the model sees it", () => {
    it.effect("registers as plan, with a manual per action and enums for action and status", () =>
      Effect.gen(function*() {
        const registry = yield* ToolRegistry
        yield* registry.add(yield* planTool)
        const [spec] = yield* registry.specs
        expect(spec?.name).toBe("plan")
        for (const section of [`action="add"`, `action="update"`, `action="delete"`, `action="list"`]) {
          expect(spec?.description).toContain(section)
        }
        expect(spec?.description).toContain(`The "items" array MUST be a real JSON array, not a quoted string.`)
        expect(spec?.parameters).toMatchObject({
          required: ["action"],
          properties: {
            action: { enum: ["add", "update", "delete", "list"] },
            status: { enum: ["pending", "working", "done", "error", "deleted"] },
            items: { type: "array", items: { type: "object" } }
          }
        })
        const result = yield* registry.call(
          new ToolCall({ id: "c1", name: "plan", arguments: JSON.stringify({ action: "add", text: "via registry" }) })
        )
        expect(result.content).toBe("added 1 item (id 1).\n- [ ] 1. via registry")
      }).pipe(Effect.provide(ToolRegistryLive.layer({ tools: [] })), Effect.provide(PlanLive.layer)))
  })
})
