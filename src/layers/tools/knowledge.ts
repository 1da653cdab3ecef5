/**
 * The seven `knowledge_*` tools: the model's long-term memory over the
 * `MemoryStore`. Keywords are the only identifier; the descriptions push the
 * model to use memory first and to save what it learns, because generic
 * "saves a note" wording produces a model that seldom remembers anything.
 *
 * @module
 */
import { Effect, Either, Schema } from "effect"
import {
  bodyMaxBytes,
  keywordsLimit,
  keywordsPerEntryMax,
  listLimit,
  loadMaxEntries,
  searchLimit
} from "../../domain/memory.js"
import * as Tool from "../../domain/Tool.js"
import {
  keywordRules,
  saveDescription,
  appendDescription,
  searchDescription,
  loadDescription,
  listDescription,
  deleteDescription,
  keywordsDescription
} from "./knowledgeDescriptions.js"
import { appendMessage, renderEntry, summary } from "./knowledgeReplies.js"
import { MemoryStore, type Service } from "../../services/MemoryStore.js"

/** The schema shows the count the rules state; the store checks it, with an error that teaches. */
const keywordsParam = (purpose: string) =>
  Schema.Array(Schema.String).annotations({
    description: `Required. ${purpose} ${keywordRules}`,
    jsonSchema: { minItems: 1, maxItems: keywordsPerEntryMax }
  })

const contentParam = Schema.String.annotations({
  description: `Required. The Markdown text, at most ${bodyMaxBytes} bytes (256 KiB).`
})

// ---------------------------------------------------------------------------

const saveTool = (store: Service) =>
  Tool.make({
    name: "knowledge_save",
    annotations: { readOnly: false, destructive: true },
    description: saveDescription,
    shortDescription:
      "Save a fact to your long-term memory under 1-8 keywords (the keywords are its name). Use it aggressively for anything worth remembering.",
    parameters: Schema.Struct({
      keywords: keywordsParam("The entry's name and how you will find it again."),
      content: contentParam,
      fix: Schema.optional(Schema.Boolean).annotations({
        description: "Optional. true makes the entry immutable (its first keyword gets the fix- prefix). Default false."
      })
    }),
    examples: [{ keywords: ["user", "editor"], content: "The user edits with Neovim, tabs of width 4." }],
    handler: ({ content, fix, keywords }) =>
      Effect.map(
        store.save(keywords, content, { fix: fix ?? false }),
        ({ created, entry }) =>
          created
            ? `created "${entry.file}" (${entry.bytes} bytes)`
            : `updated "${entry.file}" (${entry.bytes} bytes, replaced the previous body)`
      )
  })

// ---------------------------------------------------------------------------

const appendTool = (store: Service) =>
  Tool.make({
    name: "knowledge_append",
    annotations: { readOnly: false, destructive: false },
    description: appendDescription,
    shortDescription:
      "Add text to a memory entry after a --- line (creates it if missing), keeping what it already says.",
    parameters: Schema.Struct({
      keywords: keywordsParam("The entry's keywords."),
      content: contentParam
    }),
    examples: [{ keywords: ["postgres", "backup"], content: "2026-05: backups moved to 02:00 UTC." }],
    handler: ({ content, keywords }) => Effect.map(store.append(keywords, content), appendMessage)
  })

// ---------------------------------------------------------------------------

const searchTool = (store: Service) =>
  Tool.make({
    name: "knowledge_search",
    annotations: { readOnly: true, idempotent: true },
    description: searchDescription,
    shortDescription:
      "Search your long-term memory by keywords — do this FIRST for anything you might already know, before the web.",
    parameters: Schema.Struct({
      keywords: keywordsParam("The words to look for."),
      max_results: Schema.optional(Schema.Int.pipe(Schema.between(1, searchLimit.max))).annotations({
        description: `Optional. 1 to ${searchLimit.max}. Default ${searchLimit.default}.`
      })
    }),
    examples: [{ keywords: ["python", "asyncio"] }],
    handler: ({ keywords, max_results }) =>
      Effect.gen(function*() {
        const result = yield* store.search(keywords, max_results)
        if (result.hits.length === 0) {
          const { entries } = yield* store.vocabulary
          return `no entry carries any of: ${keywords.map((k) => k.trim().toLowerCase()).join(", ")}. ` +
            `Memory holds ${entries} ${entries === 1 ? "entry" : "entries"} (knowledge_keywords lists its vocabulary). ` +
            `Look it up elsewhere (the web, files), then knowledge_save what you learn.`
        }
        const asked = new Set(keywords.map((k) => k.trim().toLowerCase())).size
        const lines = result.hits.map((hit, i) =>
          `${i + 1}. ${summary(hit.entry)} — matched ${hit.matched.length}/${asked}: ${hit.matched.join(" ")}`
        )
        const toLoad = result.hits.slice(0, loadMaxEntries).map((hit) => hit.entry.keywords)
        return [
          `${result.total} ${result.total === 1 ? "entry matches" : "entries match"}${
            result.total > result.hits.length ? ` (showing the best ${result.hits.length})` : ""
          }, best first:`,
          ...lines,
          `Read them with knowledge_load(${JSON.stringify({ keywords: toLoad })}).`
        ].join("\n")
      })
  })

// ---------------------------------------------------------------------------

const EntryRef = Schema.Union(Schema.Array(Schema.String), Schema.String)

/** The keywords an entry reference names: a keyword list, or a file name / key such as `asyncio_python.md`. */
const keywordsOf = (ref: ReadonlyArray<string> | string): ReadonlyArray<string> => {
  if (typeof ref !== "string") return ref
  const trimmed = ref.trim()
  const stem = trimmed.toLowerCase().endsWith(".md") ? trimmed.slice(0, -3) : trimmed
  const parts: Array<string> = []
  let part = ""
  for (const char of stem) {
    if (char === "_" || char === " " || char === ",") {
      if (part !== "") parts.push(part)
      part = ""
    } else part += char
  }
  if (part !== "") parts.push(part)
  return parts
}

const loadTool = (store: Service) =>
  Tool.make({
    name: "knowledge_load",
    annotations: { readOnly: true, idempotent: true },
    description: loadDescription,
    shortDescription: `Read 1-${loadMaxEntries} memory entries in full (by their keywords, as knowledge_search lists them).`,
    parameters: Schema.Struct({
      keywords: Schema.Array(EntryRef).annotations({
        description: `Required. 1 to ${loadMaxEntries} entries: each a keyword list like ["asyncio", "python"] ` +
          `or a file name like "asyncio_python.md".`,
        jsonSchema: { minItems: 1, maxItems: loadMaxEntries }
      })
    }),
    examples: [{ keywords: [["asyncio", "python"]] }],
    handler: ({ keywords }) =>
      Effect.gen(function*() {
        if (keywords.length === 0 || keywords.length > loadMaxEntries) {
          return yield* Tool.fail(
            keywords.length === 0
              ? `pass 1 to ${loadMaxEntries} entries, e.g. {"keywords": [["asyncio", "python"]]}`
              : `you asked for ${keywords.length} entries; knowledge_load reads 1 to ${loadMaxEntries} per call: ` +
                `load the ${loadMaxEntries} most relevant (knowledge_search ranks them), then more if you still need them`
          )
        }
        const refs = keywords.map(keywordsOf)
        const outcomes = yield* Effect.forEach(refs, (ref) => Effect.either(store.load(ref)))
        const found = outcomes.filter(Either.isRight).map((outcome) => outcome.right)
        // A flat list of words most likely meant one entry's keywords: try that before giving up.
        if (found.length === 0 && keywords.every((ref) => typeof ref === "string") && refs.length > 1) {
          const combined = yield* Effect.either(store.load(refs.flat()))
          if (Either.isRight(combined)) {
            return `(read your keywords as one entry's; pass [[...]] for one entry, or file names for several)\n${
              renderEntry(combined.right)
            }`
          }
        }
        const failures = outcomes.filter(Either.isLeft).map((outcome) => outcome.left)
        if (found.length === 0) return yield* Tool.fail(failures.map((failure) => failure.message).join("\n"))
        return [
          ...found.map(renderEntry),
          ...failures.map((failure) => `=== not loaded: ${failure.message} ===`)
        ].join("\n\n")
      })
  })

// ---------------------------------------------------------------------------

const listTool = (store: Service) =>
  Tool.make({
    name: "knowledge_list",
    annotations: { readOnly: true, idempotent: true },
    description: listDescription,
    shortDescription: "List your memory entries, optionally those with a keyword starting with a prefix.",
    parameters: Schema.Struct({
      prefix: Schema.optional(Schema.String).annotations({
        description: "Optional. The start of a keyword or file name. Default: every entry."
      }),
      max: Schema.optional(Schema.Int.pipe(Schema.between(1, listLimit.max))).annotations({
        description: `Optional. 1 to ${listLimit.max}. Default ${listLimit.default}.`
      })
    }),
    examples: [{ prefix: "postgres" }],
    handler: ({ max, prefix }) =>
      Effect.map(store.list(prefix, max), (result) => {
        const wanted = prefix?.trim() ?? ""
        if (result.total === 0) {
          return wanted === ""
            ? "memory is empty: knowledge_save what is worth remembering."
            : `no entry has a name or keyword starting with "${wanted}": try a shorter prefix, or knowledge_list without one.`
        }
        return [
          `${result.total} ${result.total === 1 ? "entry" : "entries"}${wanted === "" ? "" : ` starting with "${wanted}"`}:`,
          ...result.entries.map((entry) => `- ${summary(entry)}`),
          ...(result.total > result.entries.length
            ? [`(showing ${result.entries.length} of ${result.total}: narrow with prefix, or raise max up to ${listLimit.max})`]
            : [])
        ].join("\n")
      })
  })

// ---------------------------------------------------------------------------

const deleteTool = (store: Service) =>
  Tool.make({
    name: "knowledge_delete",
    annotations: { readOnly: false, destructive: true },
    description: deleteDescription,
    shortDescription: "Delete a wrong or stale memory entry by its keywords (fix- entries cannot be deleted).",
    parameters: Schema.Struct({ keywords: keywordsParam("The entry's keywords.") }),
    examples: [{ keywords: ["node", "version"] }],
    handler: ({ keywords }) =>
      Effect.map(store.delete(keywords), (entry) => `deleted "${entry.file}" (${entry.bytes} bytes)`)
  })

// ---------------------------------------------------------------------------

const keywordsTool = (store: Service) =>
  Tool.make({
    name: "knowledge_keywords",
    annotations: { readOnly: true, idempotent: true },
    description: keywordsDescription,
    shortDescription: "List the keywords your memory uses, most common first, with their entry counts.",
    parameters: Schema.Struct({
      min_count: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))).annotations({
        description: "Optional. Only keywords carried by at least this many entries. Default 1."
      }),
      max: Schema.optional(Schema.Int.pipe(Schema.between(1, keywordsLimit.max))).annotations({
        description: `Optional. 1 to ${keywordsLimit.max}. Default ${keywordsLimit.default}.`
      })
    }),
    examples: [{ min_count: 2 }],
    handler: ({ max, min_count }) =>
      Effect.map(store.keywords(max, min_count), (result) => {
        if (result.entries === 0) return "memory is empty: knowledge_save what is worth remembering."
        const head = `${result.entries} ${result.entries === 1 ? "entry" : "entries"}, ${result.distinct} distinct ${
          result.distinct === 1 ? "keyword" : "keywords"
        }${min_count === undefined || min_count <= 1 ? "" : ` carried by at least ${min_count} entries`}`
        if (result.distinct === 0) return `${head}: lower min_count to see the rest.`
        return [
          `${head} (most common first):`,
          result.keywords.map(({ count, keyword }) => `${keyword}(${count})`).join(" "),
          ...(result.distinct > result.keywords.length
            ? [`(showing ${result.keywords.length} of ${result.distinct}: raise max up to ${keywordsLimit.max}, or min_count)`]
            : [])
        ].join("\n")
      })
  })

/** The seven knowledge tools over the store, in the order the model should learn them. */
export const knowledgeTools: Effect.Effect<ReadonlyArray<Tool.Tool>, never, MemoryStore> = Effect.map(
  MemoryStore,
  (store) => [
    searchTool(store),
    loadTool(store),
    saveTool(store),
    appendTool(store),
    listTool(store),
    keywordsTool(store),
    deleteTool(store)
  ]
)
