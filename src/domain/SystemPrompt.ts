/**
 * The text of the system prompt: the built-in default, the blocks of the
 * AUTHORITATIVE preamble, the tools catalogue, and their composition in the
 * fixed order
 *
 *   base → tool addenda → operator appends → dynamic preamble → tools catalogue
 *
 * The system prompt holds nothing that changes from one request to the next:
 * the time is a one-line clock note at the end of a user message, the time
 * it was sent ({@link withClockNotes}), so the system prompt, the tool
 * schemas a chat template renders with it and every earlier turn stay
 * byte-identical across a conversation and a local model reuses their KV
 * cache. Of what remains,
 * the part that can change (the memory vocabulary, after a memory write)
 * comes last. Everything here is pure.
 *
 * @module
 */
import {
  operatorAppendCap,
  sanitizeAddendum,
  sanitizeSingleLine,
  toolAddendumCap,
  toolDescriptionCap,
  toolNameCap
} from "./Sanitize.js"
import { type ChatMessage, UserMessage } from "./Message.js"
import type { ToolSpec } from "./ToolCall.js"

/** The default knowledge cutoff announced to the model. */
export const defaultKnowledgeCutoff = "2024-10"

/** How many memory keywords the vocabulary block lists at most. */
export const memoryVocabularyCap = 40

/** The built-in default base prompt, used unless the operator supplies their own. */
export const builtinSystemPrompt = `You are Deep, an expert systems engineer and a careful, direct assistant.

Work in a loop: TIME -> THINK -> PLAN -> EXECUTE -> VERIFY.
- TIME: when the answer depends on "now", "today" or recent events, establish the current date first (the newest "Sent:" line of the conversation when present, else the datetime tool when you have it).
- THINK: work out what is really being asked and what you need to know to answer it.
- PLAN: for multi-step work, pick one viable approach and carry it through; do not stop at a list of options or a draft.
- EXECUTE: act with your tools instead of guessing; when you say you will use a tool, call it in the same turn.
- VERIFY: check results before you answer, and say plainly what you could not verify.

Answer concisely. Prefer exact figures, names and commands over vague descriptions.`

/** A keyword of the memory store and how many entries carry it. */
export interface KeywordCount {
  readonly keyword: string
  readonly count: number
}

/** What the memory store holds, as the vocabulary block shows it. */
export interface MemoryVocabulary {
  readonly entries: number
  readonly keywords: ReadonlyArray<KeywordCount>
}

/** Which blocks of the dynamic preamble to render. */
export interface PreambleOptions {
  /** Render the DATE/TIME and KNOWLEDGE CUTOFF blocks and note the clock on user messages. Default true. */
  readonly injectDateTime: boolean
  /** The cutoff announced, `YYYY-MM`. Default `2024-10`. */
  readonly knowledgeCutoff: string
  /** Render the memory-first KNOWLEDGE LOOP rules. */
  readonly knowledgeLoop: boolean
  /** Render the CITE SOURCES rule. Default false. */
  readonly citeSources: boolean
  /** Render the MEMORY VOCABULARY block when a store with entries is present. Default true. */
  readonly memoryVocabulary: boolean
  /** IANA time zone for the timestamp; the machine's zone when absent. */
  readonly timeZone?: string
}

/** The two formatters a timestamp needs in one time zone. */
interface ZoneFormatters {
  readonly fields: Intl.DateTimeFormat
  readonly abbreviation: Intl.DateTimeFormat
}

/**
 * Formatters by time zone (`""` for the machine's). Building an
 * `Intl.DateTimeFormat` costs far more than formatting with one, and every
 * served request formats the time; only zones `Intl` accepts get here, so
 * the map stays as small as the zone database.
 */
const zoneFormatters = new Map<string, ZoneFormatters>()

const formattersOf = (timeZone: string | undefined): ZoneFormatters => {
  const known = zoneFormatters.get(timeZone ?? "")
  if (known !== undefined) return known
  const zone = timeZone === undefined ? {} : { timeZone }
  const made: ZoneFormatters = {
    fields: new Intl.DateTimeFormat("en-US", {
      ...zone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
      timeZoneName: "longOffset"
    }),
    abbreviation: new Intl.DateTimeFormat("en-US", { ...zone, timeZoneName: "short" })
  }
  zoneFormatters.set(timeZone ?? "", made)
  return made
}

/**
 * Formats an instant as `%Y-%m-%d %H:%M:%S %z (%Z)` in `timeZone` (the
 * machine's zone by default), e.g. `2026-04-26 23:14:08 -0300 (GMT-3)`;
 * to the `"minute"`, `%Y-%m-%d %H:%M %z (%Z)`.
 */
export const formatTimestamp = (
  epochMillis: number,
  timeZone?: string,
  precision: "second" | "minute" = "second"
): string => {
  const { date, minute, second, zone } = timestampParts(epochMillis, timeZone)
  return `${date} ${minute}${precision === "second" ? `:${second}` : ""} ${zone}`
}

/** An instant's `%Y-%m-%d`, `%H:%M`, `%S` and `%z (%Z)` in `timeZone` (the machine's by default). */
const timestampParts = (epochMillis: number, timeZone: string | undefined) => {
  const instant = new Date(epochMillis)
  const part = (parts: ReadonlyArray<Intl.DateTimeFormatPart>, type: Intl.DateTimeFormatPartTypes): string =>
    parts.find((p) => p.type === type)?.value ?? ""
  const { fields: fieldsFormat, abbreviation: abbreviationFormat } = formattersOf(timeZone)
  const fields = fieldsFormat.formatToParts(instant)
  const longOffset = part(fields, "timeZoneName") // "GMT-03:00", or "GMT" for a zero offset
  const sign = longOffset.length > 3 ? longOffset.charAt(3) : "+"
  const offset = longOffset.length > 3 ? `${sign}${longOffset.slice(4, 6)}${longOffset.slice(7, 9)}` : "+0000"
  const abbreviation = part(abbreviationFormat.formatToParts(instant), "timeZoneName")
  return {
    date: `${part(fields, "year")}-${part(fields, "month")}-${part(fields, "day")}`,
    minute: `${part(fields, "hour")}:${part(fields, "minute")}`,
    second: part(fields, "second"),
    zone: `${offset} (${abbreviation})`
  }
}

/**
 * The AUTHORITATIVE DATE/TIME block: where the current time is and how to
 * use it. It names no time itself, so it never changes.
 */
export const dateTimeBlock = `# AUTHORITATIVE DATE/TIME (do not ignore, do not second-guess)
A user message ends with a line "Sent: <date and time>" when the clock moved since the last one ("Sent: <time>" on the same day); the newest is now.
Trust it over any training-data intuition about "today".
Compute ages, durations, deadlines and "how long ago" from it.`

/**
 * A minute as a user message's clock note tells it: in full, or by the time
 * of day alone when an earlier note of the conversation gave its day.
 */
export interface ClockReading {
  /** `Sent: 2026-04-26 23:14 -0300 (GMT-3)`. */
  readonly full: string
  /** `Sent: 23:14`: a third of the tokens, and every note after the first of a day is one. */
  readonly timeOfDay: string
  /** The day and the zone `full` names, `2026-04-26 -0300 (GMT-3)`. */
  readonly day: string
}

/**
 * The clock note of one user message, to the minute: a few tokens, since
 * the turn that carries one evaluates it, and a minute is as fine as a
 * conversation needs (the datetime tool tells seconds).
 */
export const clockNote = (epochMillis: number, timeZone?: string): ClockReading => {
  const { date, minute, zone } = timestampParts(epochMillis, timeZone)
  return { full: `Sent: ${date} ${minute} ${zone}`, timeOfDay: `Sent: ${minute}`, day: `${date} ${zone}` }
}

/**
 * The conversation as the model sees it: each user message for which
 * `noteAt(index)` names a note ends with it, after a blank line; every other
 * message is untouched. A user message keeps the note of the moment it was
 * sent on every later turn, so nothing before the newest message changes and
 * the prompt's prefix stays cached; the caller keeps its own history without
 * notes, so a note never reaches a stored turn.
 */
export const withClockNotes = (
  messages: ReadonlyArray<ChatMessage>,
  noteAt: (index: number) => string | undefined
): ReadonlyArray<ChatMessage> =>
  messages.map((message, index) => {
    if (message._tag !== "UserMessage") return message
    const note = noteAt(index)
    if (note === undefined || note === "") return message
    return new UserMessage({ content: message.content === "" ? note : `${message.content}\n\n${note}` })
  })

/**
 * The tools that can check a post-cutoff fact, as the model calls them:
 * the web surface it sees (`web action=search/fetch` in unified mode,
 * `web_search/web_fetch` in split mode) and `datetime`.
 */
const verifierNames = new Set(["web", "web_search", "web_fetch", "datetime"])

const verifyingTools = (toolNames: ReadonlyArray<string>): ReadonlyArray<string> => {
  const active = new Set(toolNames)
  const split = ["web_search", "web_fetch"].filter((name) => active.has(name))
  return [
    ...(active.has("web") ? ["web action=search/fetch"] : []),
    ...(split.length > 0 ? [split.join("/")] : []),
    ...(active.has("datetime") ? ["datetime"] : [])
  ]
}

/**
 * The KNOWLEDGE CUTOFF block. It names only tools in `toolNames` (the active
 * ones); with none, the model is told to say it is not certain.
 */
export const knowledgeCutoffBlock = (cutoff: string, toolNames: ReadonlyArray<string> = []): string => {
  const head = `# KNOWLEDGE CUTOFF
Your training data ends around ${sanitizeSingleLine(cutoff, 32)}.`
  const tail = "Never present a post-cutoff fact as known."
  if (toolNames.length === 0) {
    return `${head}
For ANY claim about events, people, products, prices, releases,
leaders, scores, weather, or facts after that cutoff, say explicitly
that you are not certain: you have no tools to verify it.
${tail}`
  }
  const named = verifyingTools(toolNames)
  const more = toolNames.some((name) => !verifierNames.has(name))
  const call = named.length === 0
    ? "Call one of your tools that can verify it"
    : `Call a tool (${named.join(", ")}${more ? ", …" : ""}) to verify`
  return `${head}
For ANY claim about events, people, products, prices, releases,
leaders, scores, weather, or facts after that cutoff you MUST
either:
  1. ${call}, OR
  2. Explicitly state that you are not certain.
${tail}`
}

/** The memory-first KNOWLEDGE LOOP rules. */
export const knowledgeLoopBlock = `# KNOWLEDGE LOOP
When your memory tools (knowledge_*) and web tools are both available, answer this way:
  1. Memory first: knowledge_search / knowledge_load the relevant keywords.
  2. Web second: also search the web, even when memory had results.
  3. Merge and answer: combine both; on a conflict prefer the more recent, more authoritative source.
  4. Update memory: knowledge_save the durable new facts the web gave you.`

/** The CITE SOURCES rule. */
export const citeSourcesBlock = `# CITE SOURCES
When your answer uses facts a tool gave you (a web page, a file, a memory entry), name the source next to the fact:
the URL, the file path or the memory keywords. Never invent a source.`

/**
 * The MEMORY VOCABULARY block: the top keywords by count (ties by name), or
 * nothing when the store is empty.
 */
export const memoryVocabularyBlock = (vocabulary: MemoryVocabulary): string => {
  if (vocabulary.entries === 0 || vocabulary.keywords.length === 0) return ""
  const top = [...vocabulary.keywords]
    .sort((a, b) => b.count - a.count || (a.keyword < b.keyword ? -1 : a.keyword > b.keyword ? 1 : 0))
    .slice(0, memoryVocabularyCap)
    .map(({ count, keyword }) => `${sanitizeSingleLine(keyword, 32)}(${count})`)
  return `# MEMORY VOCABULARY (the keywords your private memory currently
has tagged — the FIRST place to look for anything you might
already know)
${vocabulary.entries} entries (most-common first; call knowledge_search(
keywords=["<name>", ...]) to recall):
${top.join(" ")}`
}

/**
 * The dynamic preamble, in its fixed order: DATE/TIME, KNOWLEDGE CUTOFF,
 * KNOWLEDGE LOOP, CITE SOURCES, and MEMORY VOCABULARY last (the only block a
 * memory write changes). It holds no timestamp: the time of a turn is its
 * {@link clockNote}. `toolNames` are the active tools, the only ones it names.
 */
export const dynamicPreamble = (
  options: PreambleOptions,
  vocabulary: MemoryVocabulary | undefined,
  toolNames: ReadonlyArray<string> = []
): string =>
  joinBlocks([
    options.injectDateTime ? dateTimeBlock : "",
    options.injectDateTime ? knowledgeCutoffBlock(options.knowledgeCutoff, toolNames) : "",
    options.knowledgeLoop ? knowledgeLoopBlock : "",
    options.citeSources ? citeSourcesBlock : "",
    options.memoryVocabulary && vocabulary !== undefined ? memoryVocabularyBlock(vocabulary) : ""
  ])

/** The read-only `evaluate` rule, shown whenever `evaluate` is registered. */
export const writeEditPolicyBlock = (specs: ReadonlyArray<ToolSpec>): string => {
  const names = new Set(specs.map((spec) => spec.name))
  const writer = names.has("fs_write") ? "fs_write" : names.has("fs") ? `fs(action="write")` : undefined
  return `## Write/edit policy (AUTHORITATIVE)
evaluate is READ-ONLY: it computes and may read files, but any attempt to write, create or delete a file from it fails.
${
    writer === undefined
      ? "You have no file-writing tool: deliver file contents directly in your reply."
      : `To create or change a file, use ${writer}.`
  }`
}

/**
 * The tools catalogue: the closed-set rule and one line per active tool,
 * each name and description forced onto one line and capped, so a hostile
 * tool description cannot forge a section of the prompt.
 */
export const toolsBlock = (specs: ReadonlyArray<ToolSpec>): string => {
  if (specs.length === 0) {
    return `# TOOLS
You have no tools in this session. Answer from what you know, and say so when you are not certain.`
  }
  const lines = specs.map((spec) =>
    `- ${sanitizeSingleLine(spec.name, toolNameCap)} — ${sanitizeSingleLine(spec.shortDescription, toolDescriptionCap)}`
  )
  return joinBlocks([
    `# TOOLS (AUTHORITATIVE)
Your tools are EXACTLY the ones listed here and in your schema. Never invent a tool name or call one you remember
from training. If you are asked for a file or document and have no tool that writes files, deliver the content
directly in your reply.
Active tools:
${lines.join("\n")}`,
    specs.some((spec) => spec.name === "evaluate") ? writeEditPolicyBlock(specs) : ""
  ])
}

/** The five layers of a system prompt, before sanitizing. */
export interface SystemPromptLayers {
  /** The base prompt: the built-in default, the operator's own, or empty. */
  readonly base: string
  /** The registered tools; their addenda form layer 2 and their catalogue layer 5. */
  readonly tools: ReadonlyArray<ToolSpec>
  /** The operator's appended texts, in call order. */
  readonly appends: ReadonlyArray<string>
  /** The rendered dynamic preamble. */
  readonly preamble: string
  /** Whether to end with the tools catalogue (a remote server renders its own). */
  readonly toolsCatalogue: boolean
}

/**
 * Composes the system prompt in the fixed order, sanitizing every spliced
 * text: each tool addendum (8 KiB) and the operator appends (16 KiB).
 */
export const composeSystemPrompt = (layers: SystemPromptLayers): string =>
  joinBlocks([
    layers.base,
    ...layers.tools.map((spec) => sanitizeAddendum(spec.systemAddendum ?? "", toolAddendumCap)),
    sanitizeAddendum(joinBlocks(layers.appends), operatorAppendCap),
    layers.preamble,
    layers.toolsCatalogue ? toolsBlock(layers.tools) : ""
  ])

/** Joins the non-blank blocks with one blank line between them. */
export const joinBlocks = (blocks: ReadonlyArray<string>): string =>
  blocks.map((block) => block.trim()).filter((block) => block !== "").join("\n\n")
