/**
 * The plan: the agent-visible task list the `plan` tool edits, as pure data
 * and pure functions.
 *
 * A plan is a numbered list of items, each `pending`, `working`, `done`,
 * `error` or `deleted`. Deleting is soft: a deleted item stays in the list,
 * struck through, so the user sees what the model abandoned; only wiping the
 * plan (`id: "all"`) or resetting it drops items. Ids are never reused while
 * the plan lives, so an id the model cited in its reasoning keeps meaning the
 * same step.
 *
 * What one tool call does to a plan is `applyPlanRequest` (planRequest.ts);
 * how a plan is shown is up to whoever shows it: the `plan` tool's checklist
 * for the model, the CLI's colours for a person.
 *
 * @module
 */
import { Schema } from "effect"

/** Most items one call may add, update or delete. */
export const planBatchMax = 20

/** Longest item text kept, in characters; longer text is cut. */
export const planTextCap = 500

/** What an item's box says: display intent, not a workflow the model must follow. */
export const PlanStatus = Schema.Literal("pending", "working", "done", "error", "deleted")
/** What an item's box says. */
export type PlanStatus = typeof PlanStatus.Type

/** Every status, in the order the manual lists them. */
export const planStatuses: ReadonlyArray<PlanStatus> = PlanStatus.literals

/** The four canonical actions of the `plan` tool. */
export const PlanAction = Schema.Literal("add", "update", "delete", "list")
/** One of the four canonical actions. */
export type PlanAction = typeof PlanAction.Type

/** Every canonical action, in manual order. */
export const planActions: ReadonlyArray<PlanAction> = PlanAction.literals

/** One step of the plan. */
export class PlanItem extends Schema.Class<PlanItem>("PlanItem")({
  id: Schema.Int,
  text: Schema.String,
  status: PlanStatus
}) {}

/** The whole plan at one moment: its items in the order they were added. */
export class PlanSnapshot extends Schema.Class<PlanSnapshot>("PlanSnapshot")({
  items: Schema.Array(PlanItem)
}) {
  /** The plan with no items. */
  static readonly empty: PlanSnapshot = new PlanSnapshot({ items: [] })
}

/** An item id as a model writes it: a number, a numeric string, or `"all"`. */
export type PlanIdInput = number | string

/** One entry of a batch, as written by a model or a program. */
export interface PlanItemInput {
  readonly id?: PlanIdInput | undefined
  readonly text?: string | undefined
  readonly status?: string | undefined
}

/**
 * One call of the `plan` tool. Every field is optional and loosely typed on
 * purpose: this is what a model wrote, and {@link applyPlanRequest} forgives what
 * it can (synonyms, a missing action, `"3"` for `3`, a bare string for
 * `{text}` or a bare number for `{id}` in `items`) and teaches what it cannot.
 * When `items` is non-empty it wins over the single-item fields.
 */
export interface PlanRequest {
  /** `add`, `update`, `delete`, `list` or a synonym; absent or empty to infer it. */
  readonly action?: string | undefined
  readonly id?: PlanIdInput | undefined
  readonly text?: string | undefined
  readonly status?: string | undefined
  readonly items?: ReadonlyArray<PlanItemInput | string | number> | undefined
}

/** What one successful call did. */
export interface PlanResult {
  /** The action that ran, after synonyms and inference. */
  readonly action: PlanAction
  /** Whether the action was missing and inferred from the fields and the plan. */
  readonly inferred: boolean
  /** Whether the plan was mutated (every add, update or delete; never list). */
  readonly changed: boolean
  /** The ids the call created, updated or deleted, in call order. */
  readonly ids: ReadonlyArray<number>
  /** One line saying what happened, for the model. */
  readonly summary: string
  /** The plan after the call. */
  readonly snapshot: PlanSnapshot
}

/**
 * A rejected plan call. `message` teaches the model the correct call; the
 * `plan` tool shows it as `plan: <message>`.
 */
export class PlanError extends Schema.TaggedError<PlanError>()("PlanError", {
  reason: Schema.Literal("UnknownAction", "MissingField", "InvalidId", "UnknownId", "InvalidStatus", "TooManyItems"),
  message: Schema.String
}) {}

// ---------------------------------------------------------------------------
// Synonyms

/** What a verb means: a canonical action, plus the status or wipe some verbs imply. */
export interface PlanVerb {
  readonly action: PlanAction
  readonly impliedStatus?: PlanStatus
  readonly wipe?: boolean
}

const verbs: Readonly<Record<string, PlanVerb>> = (() => {
  const table: Record<string, PlanVerb> = {}
  const define = (words: ReadonlyArray<string>, verb: PlanVerb) => {
    for (const word of words) table[word] = verb
  }
  define(["add", "create", "append", "insert", "new", "push", "plan"], { action: "add" })
  define(["update", "modify", "change", "edit", "set", "mark", "patch", "rename", "replace"], { action: "update" })
  define(["delete", "remove", "rm", "del", "drop", "discard", "cancel", "erase"], { action: "delete" })
  define(["list", "show", "get", "view", "read", "display", "print", "status", "ls"], { action: "list" })
  // The verbs of the tool's earlier add|start|done|list schema and their kin: each implies a status.
  define(["start", "begin", "work"], { action: "update", impliedStatus: "working" })
  define(["done", "complete", "finish", "check", "tick"], { action: "update", impliedStatus: "done" })
  define(["fail", "error"], { action: "update", impliedStatus: "error" })
  define(["clear", "wipe", "reset", "clean"], { action: "delete", wipe: true })
  return table
})()

/** `Add_Items`, `add-item`, ` ADD ` → `add`: case, separators and an item/step/task/plan/status suffix do not matter. */
const wordOf = (text: string): string =>
  text.trim().toLowerCase().replace(/[\s-]+/g, "_").replace(/_(items?|steps?|tasks?|plan|status)$/, "")

/** The canonical action a verb (or one of its synonyms) names, if any. */
export const normalizePlanAction = (word: string): PlanAction | undefined => planVerb(word)?.action

/** What a verb (or one of its synonyms) means, if it means anything. */
export const planVerb = (word: string): PlanVerb | undefined => verbs[wordOf(word)]

const statusWords: Readonly<Record<string, PlanStatus>> = (() => {
  const table: Record<string, PlanStatus> = {}
  const define = (words: ReadonlyArray<string>, status: PlanStatus) => {
    for (const word of words) table[word] = status
  }
  define(["pending", "todo", "to_do", "open", "new", "not_started", "queued", "waiting", "planned"], "pending")
  define(
    ["working", "in_progress", "inprogress", "progress", "doing", "active", "started", "start", "running", "wip"],
    "working"
  )
  define(["done", "complete", "completed", "finished", "finish", "ok", "success", "succeeded", "closed", "checked"], "done")
  define(["error", "failed", "fail", "failure", "blocked", "broken"], "error")
  define(["deleted", "delete", "removed", "cancelled", "canceled", "skipped", "dropped", "abandoned"], "deleted")
  return table
})()

/** The status a word (or one of its synonyms, such as `in_progress` or `completed`) names, if any. */
export const normalizePlanStatus = (word: string): PlanStatus | undefined =>
  statusWords[word.trim().toLowerCase().replace(/[\s-]+/g, "_")]
