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
  appendMessage,
  bodyMaxBytes,
  type EntryMeta,
  keywordMaxBytes,
  keywordsLimit,
  keywordsPerEntryMax,
  listLimit,
  loadMaxEntries,
  type MemoryEntry,
  searchLimit
} from "../../domain/memory.js"
import * as Tool from "../../domain/Tool.js"
import { MemoryStore, type Service } from "../../services/MemoryStore.js"

const workflow = `Memory workflow (whenever you also have web tools):
  1. Memory first: knowledge_search the keywords of the question, knowledge_load what looks relevant.
  2. Web second: search the web too, even when memory had results.
  3. Merge and answer: combine both; on a conflict prefer the more recent, more authoritative source.
  4. Update memory: knowledge_save (or knowledge_append) the durable new facts the web gave you.`

const keywordRules = `1 to ${keywordsPerEntryMax} keywords, each ONE word of letters, digits, ".", "+" or "-" ` +
  `(at most ${keywordMaxBytes} bytes; no spaces, "_" or "/"). Case does not matter.`

/** The schema shows the count the rules state; the store checks it, with an error that teaches. */
const keywordsParam = (purpose: string) =>
  Schema.Array(Schema.String).annotations({
    description: `Required. ${purpose} ${keywordRules}`,
    jsonSchema: { minItems: 1, maxItems: keywordsPerEntryMax }
  })

const contentParam = Schema.String.annotations({
  description: `Required. The Markdown text, at most ${bodyMaxBytes} bytes (256 KiB).`
})

/** `2026-05-01 14:03 UTC`. */
const formatDate = (epochMillis: number): string => {
  const iso = new Date(epochMillis).toISOString()
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`
}

const summary = (entry: EntryMeta): string =>
  `${entry.file} — keywords: ${entry.keywords.join(" ")} — ${entry.bytes} bytes — ${formatDate(entry.modifiedMillis)}${
    entry.fixed ? " — fixed" : ""
  }`

// ---------------------------------------------------------------------------

const saveDescription = `Save a fact, decision, recipe or finding to your long-term memory, so you still know it in later conversations.
USE THIS AGGRESSIVELY: the user's preferences and setup, project facts and decisions, commands and fixes that worked,
answers you had to look up on the web, anything the user might ask again. A memory you did not save is lost.

The keywords ARE the entry's name: sorted and joined by "_" they form its file name, so ["python", "asyncio"] is
"asyncio_python.md". Saving again with the same keywords REPLACES that entry; to add to it, use knowledge_append.

Parameters:
  keywords  Required. ${keywordRules}
            Pick specific ones: ["postgres", "backup", "cron"] finds better than ["database"].
  content   Required. The Markdown body, at most ${bodyMaxBytes} bytes (256 KiB). Write it to make sense on its own
            months from now: what, why, where it came from (URL, file), and the date when it matters.
  fix       Optional. true mints an IMMUTABLE entry: the first keyword gets the "fix-" prefix
            (["easyai", "design"] -> "fix-easyai_design.md") and nothing can overwrite, append to or delete it.
            Default false. Only for facts that must never change.

Output: created "key.md" (N bytes), or updated "key.md" (N bytes, replaced the previous body).

Examples:
  {"keywords": ["user", "editor"], "content": "The user edits with Neovim, tabs of width 4."}
  {"keywords": ["easyai", "design"], "content": "Keywords are the only identifier.", "fix": true}

${workflow}

Errors: invalid keywords, empty or too-large content, and overwriting a fix- entry are refused with the reason and
what to do instead.`

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

const appendDescription = `Add to a memory entry without losing what it already says: your text goes after a "---" line.
When no entry has these keywords yet, it is created. Use it to grow an entry as you learn more: a new finding,
a changed setting, a dated update, the answer to a follow-up question.

Parameters:
  keywords  Required. The entry's keywords exactly as knowledge_search shows them. ${keywordRules}
  content   Required. The text to add. The whole entry stays at most ${bodyMaxBytes} bytes (256 KiB).

Output:
  updated "key.md" (+N B → M B total)   the entry grew by N bytes (separator included) to M bytes
  created "key.md" (N bytes)            there was no such entry; it now holds your text

Example:
  {"keywords": ["postgres", "backup"], "content": "2026-05: backups moved to 02:00 UTC."}

Errors: fix- entries are immutable (cannot append; save new facts under other keywords); an entry that would grow
past 256 KiB is refused (save a condensed version with knowledge_save instead).`

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

const searchDescription = `Search your long-term memory by keywords. It is the FIRST place to look for anything you might
already know: before answering from training data, and before searching the web. The MEMORY VOCABULARY block of
your instructions lists the keywords memory holds; knowledge_keywords lists them all.

Ranking: entries carrying the most of your keywords first, then the most recently written. A keyword also finds
fixed entries ("design" finds "fix-design"). Matching is exact per keyword (case-insensitive): search several
related words, e.g. ["postgres", "postgresql", "backup"].

Parameters:
  keywords     Required. ${keywordRules}
  max_results  Optional. 1 to ${searchLimit.max}. Default ${searchLimit.default}.

Output: one line per entry (file, keywords, size, date, how many of your keywords it carries), then the
knowledge_load call that reads them. Search shows no bodies: load the ones that look relevant.

Example:
  {"keywords": ["python", "asyncio", "sockets"]}

${workflow}`

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

const loadDescription = `Read memory entries in full: 1 to ${loadMaxEntries} per call. Search first (knowledge_search), then load
the entries that look relevant; more than ${loadMaxEntries} at once would drown your context, so narrow down first.

Parameters:
  keywords  Required. 1 to ${loadMaxEntries} entries, each given as its keyword list (["asyncio", "python"]) or its
            file name as search shows it ("asyncio_python.md").

Output: each entry under a "=== file ===" line with its keywords, size and date, then its body. Entries that do not
exist are reported; the others are still shown.

Examples:
  {"keywords": [["asyncio", "python"]]}
  {"keywords": [["asyncio", "python"], "fix-easyai_design.md"]}`

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

const renderEntry = (entry: MemoryEntry): string =>
  `=== ${entry.file} (keywords: ${entry.keywords.join(" ")}; ${entry.bytes} bytes; saved ${
    formatDate(entry.modifiedMillis)
  }${entry.fixed ? "; fixed" : ""}) ===\n${entry.body}`

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

const listDescription = `Browse your long-term memory: the entries whose name or any keyword starts with a prefix (all of them
without one), in name order. Use it to review what you know about a topic, to find an entry to update or
delete, or to see what memory holds at all.

Parameters:
  prefix  Optional. The start of a keyword or file name, e.g. "pyth" or "fix-". Default: every entry.
  max     Optional. 1 to ${listLimit.max}. Default ${listLimit.default}.

Output: one line per entry (file, keywords, size, date), and how many more there are.

Examples:
  {}
  {"prefix": "postgres", "max": 20}`

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

const deleteDescription = `Delete a memory entry that is wrong, stale or superseded, to keep your memory sharp.
Prefer knowledge_save (replace) or knowledge_append (add) when the entry is still partly right.

Parameters:
  keywords  Required. The entry's keywords exactly as knowledge_search or knowledge_list show them. ${keywordRules}

Output: deleted "key.md" (N bytes).

Example:
  {"keywords": ["node", "version"]}

Errors: an entry that does not exist is reported (search for its keywords); fix- entries are immutable and cannot
be deleted.`

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

const keywordsDescription = `List the keywords your long-term memory uses, most common first, with how many entries carry each.
Use it to discover what you already know and to reuse existing keywords when you save, so related entries
stay findable together.

Parameters:
  min_count  Optional. Only keywords carried by at least this many entries. Default 1.
  max        Optional. 1 to ${keywordsLimit.max}. Default ${keywordsLimit.default}.

Output: "N entries, K distinct keywords", then keyword(count) pairs.

Example:
  {"min_count": 2}`

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
