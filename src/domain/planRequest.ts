/**
 * What one call of the `plan` tool does to a plan, as a pure function.
 *
 * {@link applyPlanRequest} is the whole contract of one tool call: it resolves
 * verb synonyms, infers a missing action from the fields present and the
 * current plan, validates everything before changing anything (one call is one
 * batch), and rejects a bad call with an error whose text shows a correct one.
 *
 * @module
 */
import { Either } from "effect"
import {
  type PlanAction,
  PlanError,
  type PlanIdInput,
  PlanItem,
  type PlanItemInput,
  type PlanRequest,
  type PlanResult,
  PlanSnapshot,
  type PlanStatus,
  type PlanVerb,
  normalizePlanStatus,
  planActions,
  planBatchMax,
  planStatuses,
  planTextCap,
  planVerb
} from "./plan.js"
import { sanitizeSingleLine } from "./Sanitize.js"

// ---------------------------------------------------------------------------
// Teaching errors

const examples = {
  add: `{action:"add", text:"my step"} or {action:"add", items:[{text:"a"}, {text:"b"}]}`,
  update: `{action:"update", id:2, status:"done"} or {action:"update", items:[{id:1, status:"done"}, {id:2, status:"working"}]}`,
  delete: `{action:"delete", id:3}, {action:"delete", items:[{id:3}, {id:4}]} or {action:"delete", id:"all"} to wipe the plan`,
  list: `{action:"list"}`
} as const satisfies Record<PlanAction, string>

const fail = (reason: PlanError["reason"], message: string): Either.Either<never, PlanError> =>
  Either.left(new PlanError({ reason, message }))

const quote = (value: unknown): string => JSON.stringify(value) ?? String(value)

const existingIds = (snapshot: PlanSnapshot): string =>
  snapshot.items.length === 0
    ? "the plan is empty"
    : `its ids are ${snapshot.items.map((item) => item.id).join(", ")}`

/** ` (item 2 of items)` inside a batch, nothing for a single-item call. */
const where = (position: number | undefined): string => (position === undefined ? "" : ` (item ${position} of items)`)

// ---------------------------------------------------------------------------
// Inference

type Entry = PlanItemInput

const entryOf = (input: PlanItemInput | string | number): Entry =>
  typeof input === "string" ? { text: input } : typeof input === "number" ? { id: input } : input

/** The entries a call is about: its items when it has any, else its single-item fields. */
const entriesOf = (request: PlanRequest): { readonly entries: ReadonlyArray<Entry>; readonly batch: boolean } => {
  const items = request.items ?? []
  if (items.length > 0) return { entries: items.map(entryOf), batch: true }
  const single: Entry = {
    ...(request.id === undefined ? {} : { id: request.id }),
    ...(request.text === undefined ? {} : { text: request.text }),
    ...(request.status === undefined ? {} : { status: request.status })
  }
  return { entries: Object.keys(single).length === 0 ? [] : [single], batch: false }
}

const hasText = (entry: Entry): boolean => entry.text !== undefined && entry.text.trim() !== ""

/** The numeric id an entry names, when it plainly names one. */
const plainId = (id: PlanIdInput | undefined): number | undefined => {
  const parsed = id === undefined ? undefined : parsePlanId(id)
  return parsed === "all" ? undefined : parsed
}

/**
 * The action a call without one most likely meant, judged on its first
 * entry: text means add, unless the entry also names an id the plan already
 * has (then it is a rewording: update); a status means update; an id alone
 * means delete; nothing at all means list.
 */
export const inferPlanAction = (request: PlanRequest, snapshot: PlanSnapshot): PlanAction => {
  const first = entriesOf(request).entries[0]
  if (first === undefined) return "list"
  if (hasText(first)) {
    const id = plainId(first.id)
    return id !== undefined && snapshot.items.some((item) => item.id === id) ? "update" : "add"
  }
  if (first.status !== undefined && first.status.trim() !== "") return "update"
  if (first.id !== undefined) return "delete"
  return "list"
}

// ---------------------------------------------------------------------------
// Field parsing

/**
 * Reads an id: a positive integer, a numeric string (`"3"`, `"#3"`), or
 * `"all"`; `undefined` when it is none of these.
 */
export const parsePlanId = (id: PlanIdInput): number | "all" | undefined => {
  if (typeof id === "number") return Number.isInteger(id) && id >= 1 ? id : undefined
  const word = id.trim().toLowerCase().replace(/^#/, "")
  if (word === "all" || word === "*") return "all"
  return /^[0-9]+$/.test(word) && Number(word) >= 1 ? Number(word) : undefined
}

const invalidId = (action: PlanAction, id: PlanIdInput, snapshot: PlanSnapshot, position?: number) =>
  fail(
    "InvalidId",
    `id must be an item number such as 3${action === "delete" ? ` (or "all" to wipe the plan)` : ""}, got ${
      quote(id)
    }${where(position)}; ${existingIds(snapshot)}.`
  )

const unknownId = (id: number, snapshot: PlanSnapshot, position?: number) =>
  fail(
    "UnknownId",
    `no item ${id} in the plan${where(position)}; ${existingIds(snapshot)}. To create a step use {action:"add", text:"my step"}.`
  )

const parseStatus = (status: string, position?: number): Either.Either<PlanStatus, PlanError> => {
  const parsed = normalizePlanStatus(status)
  return parsed !== undefined
    ? Either.right(parsed)
    : fail(
      "InvalidStatus",
      `unknown status ${quote(status)}${where(position)}. Use one of ${planStatuses.join(", ")}. Example: {action:"update", id:2, status:"done"}`
    )
}

/** Item text as stored: one line, no control characters, at most {@link planTextCap} characters. */
export const cleanPlanText = (text: string): string => sanitizeSingleLine(text.trim(), planTextCap).trim()

/** An entry's id, which must name an item of the plan. */
const existingId = (
  action: PlanAction,
  entry: Entry,
  snapshot: PlanSnapshot,
  position: number | undefined
): Either.Either<number, PlanError> => {
  if (entry.id === undefined) {
    return fail("MissingField", `'${action}' needs the id of an item${where(position)}. Examples: ${examples[action]}`)
  }
  const id = parsePlanId(entry.id)
  if (id === undefined) return invalidId(action, entry.id, snapshot, position)
  if (id === "all") {
    return fail(
      "InvalidId",
      `id "all" only works with delete (it wipes the plan). To change several items in one call use ${examples.update}`
    )
  }
  return snapshot.items.some((item) => item.id === id) ? Either.right(id) : unknownId(id, snapshot, position)
}

// ---------------------------------------------------------------------------
// The actions

/** What an action produces; the action and whether it was inferred are added after. */
type Outcome = Omit<PlanResult, "action" | "inferred">

interface Options {
  readonly impliedStatus: PlanStatus | undefined
  readonly wipe: boolean
}

/** One action over the plan: what it does to `snapshot` for the call's entries. */
type Step = (
  snapshot: PlanSnapshot,
  entries: ReadonlyArray<Entry>,
  batch: boolean,
  options: Options
) => Either.Either<Outcome, PlanError>

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? "" : "s"}`

const idList = (ids: ReadonlyArray<number>): string => `${ids.length === 1 ? "item" : "items"} ${ids.join(", ")}`

const nextId = (snapshot: PlanSnapshot): number => snapshot.items.reduce((max, item) => Math.max(max, item.id), 0) + 1

const add: Step = (snapshot, entries, batch, options) => {
  if (entries.length === 0 || (!batch && !hasText(entries[0] ?? {}))) {
    return fail("MissingField", `'add' needs either text or items. Examples: ${examples.add}`)
  }
  const created: Array<PlanItem> = []
  let id = nextId(snapshot)
  for (const [index, entry] of entries.entries()) {
    const position = batch ? index + 1 : undefined
    if (!hasText(entry)) {
      return fail("MissingField", `'add' needs text for every item; item ${index + 1} of items has none. Examples: ${examples.add}`)
    }
    const given = plainId(entry.id)
    if (given !== undefined && snapshot.items.some((item) => item.id === given)) {
      return fail(
        "InvalidId",
        `'add' creates new items and numbers them itself, but item ${given} already exists${
          where(position)
        }. To change it use {action:"update", id:${given}, text:${quote(cleanPlanText(entry.text ?? ""))}}.`
      )
    }
    const status = entry.status === undefined ? Either.right(options.impliedStatus ?? "pending") : parseStatus(entry.status, position)
    if (Either.isLeft(status)) return Either.left(status.left)
    created.push(new PlanItem({ id, text: cleanPlanText(entry.text ?? ""), status: status.right }))
    id += 1
  }
  const ids = created.map((item) => item.id)
  return Either.right({
    changed: true,
    ids,
    summary: `added ${plural(ids.length, "item")} (${ids.length === 1 ? "id" : "ids"} ${ids.join(", ")}).`,
    snapshot: new PlanSnapshot({ items: [...snapshot.items, ...created] })
  })
}

const update: Step = (snapshot, entries, batch, options) => {
  if (entries.length === 0 || (!batch && entries[0]?.id === undefined)) {
    return fail("MissingField", `'update' needs id (or items). Examples: ${examples.update}`)
  }
  const changes = new Map<number, { text?: string; status?: PlanStatus }>()
  const ids: Array<number> = []
  for (const [index, entry] of entries.entries()) {
    const position = batch ? index + 1 : undefined
    const id = existingId("update", entry, snapshot, position)
    if (Either.isLeft(id)) return Either.left(id.left)
    const text = hasText(entry) ? cleanPlanText(entry.text ?? "") : undefined
    const statusWord = entry.status !== undefined && entry.status.trim() !== "" ? entry.status : undefined
    const status = statusWord === undefined
      ? Either.right(options.impliedStatus)
      : parseStatus(statusWord, position)
    if (Either.isLeft(status)) return Either.left(status.left)
    if (text === undefined && status.right === undefined) {
      return fail(
        "MissingField",
        `'update' of item ${id.right} needs text or status (or both)${where(position)}. Example: {action:"update", id:${id.right}, status:"done"}`
      )
    }
    changes.set(id.right, {
      ...changes.get(id.right),
      ...(text === undefined ? {} : { text }),
      ...(status.right === undefined ? {} : { status: status.right })
    })
    ids.push(id.right)
  }
  const items = snapshot.items.map((item) => {
    const change = changes.get(item.id)
    return change === undefined ? item : new PlanItem({ ...item, ...change })
  })
  return Either.right({
    changed: true,
    ids,
    summary: `updated ${idList(ids)}.`,
    snapshot: new PlanSnapshot({ items })
  })
}

const wipe = (snapshot: PlanSnapshot): Outcome => ({
  changed: true,
  ids: snapshot.items.map((item) => item.id),
  summary: snapshot.items.length === 0
    ? "wiped the plan (it was already empty)."
    : `wiped the plan: removed ${plural(snapshot.items.length, "item")}.`,
  snapshot: PlanSnapshot.empty
})

const remove: Step = (snapshot, entries, batch, options) => {
  const wantsAll = entries.some((entry) => entry.id !== undefined && parsePlanId(entry.id) === "all")
  if (wantsAll || (options.wipe && entries.every((entry) => entry.id === undefined))) return Either.right(wipe(snapshot))
  if (entries.length === 0 || (!batch && entries[0]?.id === undefined)) {
    return fail("MissingField", `'delete' needs id (or items). Examples: ${examples.delete}`)
  }
  const ids: Array<number> = []
  for (const [index, entry] of entries.entries()) {
    const id = existingId("delete", entry, snapshot, batch ? index + 1 : undefined)
    if (Either.isLeft(id)) return Either.left(id.left)
    ids.push(id.right)
  }
  const gone = new Set(ids)
  const items = snapshot.items.map((item) => gone.has(item.id) ? new PlanItem({ ...item, status: "deleted" }) : item)
  return Either.right({
    changed: true,
    ids,
    summary: `deleted ${idList(ids)} (kept in the list, struck through).`,
    snapshot: new PlanSnapshot({ items })
  })
}

/** `5 items: 2 pending, 1 working, 2 done`, or `the plan is empty`. */
export const describePlanCounts = (snapshot: PlanSnapshot): string => {
  if (snapshot.items.length === 0) return "the plan is empty"
  const counts = planStatuses
    .map((status) => [status, snapshot.items.filter((item) => item.status === status).length] as const)
    .filter(([, count]) => count > 0)
    .map(([status, count]) => `${count} ${status}`)
  return `${plural(snapshot.items.length, "item")}: ${counts.join(", ")}`
}

const list = (snapshot: PlanSnapshot): Outcome => ({
  changed: false,
  ids: [],
  summary: `${describePlanCounts(snapshot)}.`,
  snapshot
})

/**
 * Applies one call to the plan: all of it, or (when anything in it is wrong)
 * none of it. Checks the batch cap, resolves the action (synonyms, or
 * inference when it is missing or empty), then validates every entry before
 * building the new plan.
 */
export const applyPlanRequest = (snapshot: PlanSnapshot, request: PlanRequest): Either.Either<PlanResult, PlanError> => {
  const count = request.items?.length ?? 0
  if (count > planBatchMax) {
    return fail(
      "TooManyItems",
      `at most ${planBatchMax} items per call, got ${count}. Send the rest in another call, or plan in fewer, bigger steps.`
    )
  }
  const word = request.action?.trim() ?? ""
  const inferred = word === ""
  const verb: PlanVerb | undefined = inferred ? { action: inferPlanAction(request, snapshot) } : planVerb(word)
  if (verb === undefined) {
    return fail(
      "UnknownAction",
      `unknown action ${quote(word)}. Use one of ${planActions.join(", ")}. Examples: ${examples.add}; ${examples.update}; {action:"delete", id:3}; ${examples.list}`
    )
  }
  const { batch, entries } = entriesOf(request)
  const options: Options = { impliedStatus: verb.impliedStatus, wipe: verb.wipe ?? false }
  const outcome = verb.action === "add"
    ? add(snapshot, entries, batch, options)
    : verb.action === "update"
    ? update(snapshot, entries, batch, options)
    : verb.action === "delete"
    ? remove(snapshot, entries, batch, options)
    : Either.right(list(snapshot))
  return Either.map(outcome, (result) => ({
    ...result,
    action: verb.action,
    inferred,
    summary: inferred ? `${result.summary} (No action was given; this call was read as "${verb.action}".)` : result.summary
  }))
}
