import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Tool, ToolFailure, ToolResult } from "easyai"

const readFile = Tool.make({
  name: "fs_read",
  description: "Read a file.\nRequired: path. Optional: limit, lines.",
  parameters: Schema.Struct({
    path: Schema.String.annotations({ description: "Required. Path under the sandbox root, e.g. /report.md" }),
    limit: Schema.optional(Schema.Int.pipe(Schema.between(1, 1_048_576))),
    lineNumbers: Schema.optional(Schema.Boolean),
    tags: Schema.optional(Schema.Array(Schema.String)),
    options: Schema.optional(Schema.Struct({ raw: Schema.Boolean }))
  }),
  handler: (params) => Effect.succeed(JSON.stringify(params))
})

const invoke = (tool: Tool.Tool, raw: string) => tool.invoke(raw)

describe("Tool.make", () => {
  it("derives an inline JSON Schema from the parameter Schema", () => {
    expect(readFile.spec.parameters).toEqual({
      type: "object",
      required: ["path"],
      properties: {
        path: { type: "string", description: "Required. Path under the sandbox root, e.g. /report.md" },
        limit: {
          type: "integer",
          description: "a number between 1 and 1048576",
          minimum: 1,
          maximum: 1048576
        },
        lineNumbers: { type: "boolean" },
        tags: { type: "array", items: { type: "string" } },
        options: {
          type: "object",
          required: ["raw"],
          properties: { raw: { type: "boolean" } },
          additionalProperties: false
        }
      },
      additionalProperties: false
    })
    expect(readFile.spec.parameters).not.toHaveProperty("$schema")
    expect(readFile.spec.parameters).not.toHaveProperty("$ref")
  })

  it("leaves Effect's refinement names out of titles, at every depth, and keeps a title someone chose", () => {
    const tool = Tool.make({
      name: "titled",
      description: "Titles.",
      parameters: Schema.Struct({
        zone: Schema.String.pipe(Schema.maxLength(64)),
        count: Schema.Int,
        nested: Schema.Struct({ items: Schema.Array(Schema.NonEmptyString).pipe(Schema.maxItems(3)) }),
        title: Schema.String.pipe(Schema.minLength(1)).annotations({ title: "Page title" })
      }),
      handler: () => Effect.succeed("")
    })
    const text = JSON.stringify(tool.spec.parameters)
    expect(text).not.toMatch(/"title":"(maxLength|int|maxItems|nonEmptyString|minLength)/)
    expect(tool.spec.parameters["properties"]).toHaveProperty("title")
    expect(text).toContain(`"title":"Page title"`)
  })

  it("uses the description's first line as the short description unless one is given", () => {
    expect(readFile.spec.shortDescription).toBe("Read a file.")
    const tool = Tool.make({
      name: "t",
      description: "\n\nLong manual.",
      shortDescription: "Short.",
      handler: () => Effect.succeed("")
    })
    expect(tool.spec.shortDescription).toBe("Short.")
  })

  it("gives a tool without parameters an empty object schema", () => {
    const today = Tool.make({ name: "today_is", description: "Day of the week.", handler: () => Effect.succeed("Saturday") })
    expect(today.spec.parameters).toEqual({ type: "object", properties: {} })
  })

  it.effect("decodes well-formed arguments", () =>
    Effect.gen(function*() {
      const result = yield* invoke(readFile, `{"path":"/a.md","limit":10}`)
      expect(result).toEqual(ToolResult.ok(`{"path":"/a.md","limit":10}`))
    }))

  it.effect("forgives quoted numbers and booleans", () =>
    Effect.gen(function*() {
      const result = yield* invoke(readFile, `{"path":"/a.md","limit":"10","lineNumbers":"false"}`)
      expect(JSON.parse(result.content)).toEqual({ path: "/a.md", limit: 10, lineNumbers: false })
    }))

  it.effect("forgives a stringified array and a stringified object", () =>
    Effect.gen(function*() {
      const result = yield* invoke(readFile, JSON.stringify({ path: "/a", tags: `["x","y"]`, options: `{"raw":"true"}` }))
      expect(JSON.parse(result.content)).toEqual({ path: "/a", tags: ["x", "y"], options: { raw: true } })
    }))

  it.effect("forgives the whole argument object written as a string, and blank arguments", () =>
    Effect.gen(function*() {
      const doubled = yield* invoke(readFile, JSON.stringify(JSON.stringify({ path: "/a" })))
      expect(JSON.parse(doubled.content)).toEqual({ path: "/a" })
      const today = Tool.make({ name: "today_is", description: "Day.", handler: () => Effect.succeed("Saturday") })
      expect(yield* today.invoke("")).toEqual(ToolResult.ok("Saturday"))
      expect(yield* today.invoke("  {} ")).toEqual(ToolResult.ok("Saturday"))
    }))

  it.effect("stays strict about everything else, with an error that teaches", () =>
    Effect.gen(function*() {
      const wrongType = yield* invoke(readFile, `{"path":"/a","limit":"ten"}`)
      expect(wrongType.isError).toBe(true)
      expect(wrongType.content).toBe(
        [
          `fs_read: invalid arguments: limit: expected an integer from 1 to 1048576, got "ten"`,
          "Parameters: path (string, required), limit (integer, optional), lineNumbers (boolean, optional), " +
          "tags (array, optional), options (object, optional)",
          `Example call: fs_read({"path":"<path>"})`
        ].join("\n")
      )
      const outOfRange = yield* invoke(readFile, `{"path":"/a","limit":0}`)
      expect(outOfRange.content).toContain("limit: expected an integer from 1 to 1048576, got 0")
      const missing = yield* invoke(readFile, `{}`)
      expect(missing.content).toContain("path: is missing")
      const unknown = yield* invoke(readFile, `{"path":"/a","colour":"red"}`)
      expect(unknown.content).toContain("colour: is not a parameter of this tool")
    }))

  it.effect("rejects text that is not a JSON object", () =>
    Effect.gen(function*() {
      const broken = yield* invoke(readFile, `{"path": "/a"`)
      expect(broken.isError).toBe(true)
      expect(broken.content).toMatch(/^fs_read: invalid arguments: .*JSON/)
      const array = yield* invoke(readFile, `[1,2]`)
      expect(array.content).toContain("arguments must be a JSON object, got array")
    }))

  it.effect("shows the tool's own example when it declares one", () =>
    Effect.gen(function*() {
      const tool = Tool.make({
        name: "send",
        description: "Send.",
        parameters: Schema.Struct({ to: Schema.String }),
        examples: [{ to: "ada@example.com" }],
        handler: () => Effect.succeed("sent")
      })
      const result = yield* tool.invoke(`{}`)
      expect(result.content).toContain(`Example call: send({"to":"ada@example.com"})`)
    }))

  it.effect("infers a missing action where the tool declares how", () =>
    Effect.gen(function*() {
      const plan = Tool.make({
        name: "plan",
        description: "Manage a plan.",
        parameters: Schema.Struct({
          action: Schema.Literal("add", "update", "delete"),
          text: Schema.optional(Schema.String),
          status: Schema.optional(Schema.String),
          id: Schema.optional(Schema.Int)
        }),
        inferAction: (args) =>
          "text" in args ? "add" : "status" in args ? "update" : "id" in args ? "delete" : undefined,
        handler: ({ action }) => Effect.succeed(action)
      })
      expect((yield* plan.invoke(`{"text":"write tests"}`)).content).toBe("add")
      expect((yield* plan.invoke(`{"id":"3","status":"done"}`)).content).toBe("update")
      expect((yield* plan.invoke(`{"id":3}`)).content).toBe("delete")
      const unresolved = yield* plan.invoke(`{}`)
      expect(unresolved.isError).toBe(true)
      expect(unresolved.content).toContain(`action: is missing`)
      expect(unresolved.content).toContain(`Example call: plan({"action":"add"})`)
    }))

  it.effect("turns a handler failure into an error result the model reads", () =>
    Effect.gen(function*() {
      const tool = Tool.make({
        name: "divide",
        description: "Divide.",
        parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
        handler: ({ a, b }) => (b === 0 ? Tool.fail("b must not be 0; try {\"a\": 1, \"b\": 2}") : Effect.succeed(String(a / b)))
      })
      expect(yield* tool.invoke(`{"a":1,"b":0}`)).toEqual(
        ToolResult.error(`divide: b must not be 0; try {"a": 1, "b": 2}`)
      )
      expect(yield* tool.invoke(`{"a":1,"b":4}`)).toEqual(ToolResult.ok("0.25"))
      const failing = Tool.make({
        name: "tagged",
        description: "Fails with a tagged error.",
        handler: () => Effect.fail(new ToolFailure({ message: "" }))
      })
      expect((yield* failing.invoke("")).content).toBe("tagged: ToolFailure")
    }))

  it.effect("lets a handler return its own error result", () =>
    Effect.gen(function*() {
      const tool = Tool.make({ name: "t", description: "T.", handler: () => Effect.succeed(ToolResult.error("no")) })
      expect(yield* tool.invoke("")).toEqual(ToolResult.error("no"))
    }))

  it("validates tool names", () => {
    expect(Tool.isValidName("fs_read")).toBe(true)
    expect(Tool.isValidName("mcp-alias_tool9")).toBe(true)
    expect(Tool.isValidName("")).toBe(false)
    expect(Tool.isValidName("has space")).toBe(false)
    expect(Tool.isValidName("a.b")).toBe(false)
    expect(Tool.isValidName("x".repeat(65))).toBe(false)
  })
})

describe("Tool.fromJsonSchema", () => {
  const manifestTool = Tool.fromJsonSchema({
    name: "disk_usage",
    description: "Show disk usage.",
    parameters: {
      type: "object",
      required: ["path"],
      properties: { path: { type: "string" }, depth: { type: "integer" }, human: { type: "boolean" } }
    },
    handler: (args) => Effect.succeed(JSON.stringify(args))
  })

  it("keeps the schema as given", () => {
    expect(manifestTool.spec.parameters).toEqual({
      type: "object",
      required: ["path"],
      properties: { path: { type: "string" }, depth: { type: "integer" }, human: { type: "boolean" } }
    })
  })

  it.effect("repairs arguments leniently and checks required parameters", () =>
    Effect.gen(function*() {
      const ok = yield* manifestTool.invoke(`{"path":"/","depth":"2","human":"TRUE"}`)
      expect(JSON.parse(ok.content)).toEqual({ path: "/", depth: 2, human: true })
      const missing = yield* manifestTool.invoke(`{"depth":2}`)
      expect(missing.isError).toBe(true)
      expect(missing.content).toContain("path: is missing")
      expect(missing.content).toContain(`Example call: disk_usage({"path":"<path>"})`)
    }))
})
