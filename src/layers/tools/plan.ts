/**
 * `plan`: the model's checklist for a multi-step task, shown to the user
 * live. One tool with four actions (add, update, delete, list), so the
 * catalogue stays small for weak models, and one symmetric field set
 * (`id`, `text`, `status`, `items`) for every action.
 *
 * @module
 */
import { Effect, Schema } from "effect"
import { planActions, planBatchMax, planStatuses, type PlanResult } from "../../domain/plan.js"
import { renderPlanPlain } from "./planChecklist.js"
import * as Tool from "../../domain/Tool.js"
import { Plan } from "../../services/Plan.js"

const description = `Keep a checklist of the steps of your current task; the user watches it update live. Add the steps first, mark each one working, then done (or error) as you go, fix a step's wording with update, and delete steps you drop.
Pick an action; the parameters needed depend on which action you choose. 4 actions are supported:

  action="add"
    Appends new steps, numbered by the plan (status "pending" unless you give one). Required: text, or items (up to ${planBatchMax}, each {text, status?}). Optional: status. Examples:
      {action:"add", text:"read the config file"}
      {action:"add", items:[{text:"read the config"}, {text:"fix the parser"}, {text:"run the tests"}]}

  action="update"
    Changes the status and/or the wording of existing steps; their ids stay the same. Never re-add a step to change it: update it. Required: id and at least one of text, status; or items (up to ${planBatchMax}, each {id, text?, status?}). Examples:
      {action:"update", id:2, status:"working"}
      {action:"update", id:2, text:"fix the parser and its tests"}
      {action:"update", items:[{id:1, status:"done"}, {id:2, status:"working"}]}

  action="delete"
    Marks steps deleted: they stay in the checklist, struck through, so the user sees what was dropped. id "all" wipes the whole plan to start over. Required: id, or items (up to ${planBatchMax}, each {id}). Examples:
      {action:"delete", id:3}
      {action:"delete", items:[{id:3}, {id:4}]}
      {action:"delete", id:"all"}

  action="list"
    Shows the plan. Required: nothing. Example:
      {action:"list"}

Statuses: pending (not started), working (in progress), done, error (the step failed), deleted.
Ids are the numbers shown in the checklist; they never change and are not reused until the plan is wiped.
Output: one line saying what changed, then the checklist, one step a line: "- [ ] 1. text" pending, "- [~]" working, "- [x]" done, "- [!]" error, "- [-] 4. ~~text~~" deleted.
At most ${planBatchMax} items per call. When items is given it wins over id, text and status. The "items" array MUST be a real JSON array, not a quoted string.`

const docs = {
  action: `Required. One of ${planActions.join(", ")}. The other parameters depend on it.`,
  id: `Used by update and delete (required unless items). The step's number as shown in the checklist, e.g. 3. delete also takes "all" to wipe the plan.`,
  text: "Used by add (required unless items) and update (optional: the new wording). One line.",
  status: `Used by update (optional) and add (optional, default "pending"). One of ${planStatuses.join(", ")}.`,
  items:
    `Used by add, update and delete: a batch of up to ${planBatchMax} steps, as a JSON array of {text, status?} for add, {id, text?, status?} for update, {id} for delete. Wins over id, text and status.`
}

// An id is a number, but models also write "3" and delete takes "all": the
// decoder accepts any string for the plan to read, and the schema shows the
// model the two forms it should write.
const idJsonSchema = (text: string) => ({
  anyOf: [{ type: "integer", minimum: 1 }, { type: "string", enum: ["all"] }],
  description: text
})

const IdParam = (text: string) =>
  Schema.Union(Schema.Int, Schema.String).annotations({ jsonSchema: idJsonSchema(text) })

// Statuses and actions are shown as enums but decoded as strings, so that
// synonyms (`in_progress`, `remove`) reach the plan, which maps them.
const StatusParam = (text: string) =>
  Schema.String.annotations({ description: text, jsonSchema: { enum: [...planStatuses] } })

const ItemParam = Schema.Struct({
  id: Schema.optional(IdParam("Used by update and delete (required). The step's number.")),
  text: Schema.optional(Schema.String.annotations({ description: "Used by add (required) and update (optional)." })),
  status: Schema.optional(StatusParam(`Optional. One of ${planStatuses.join(", ")}.`))
})

// A bare string in items is read as {text} and a bare number as {id}; the
// schema shows only the object form, the one the model should write.
const ItemEntry = Schema.Union(ItemParam, Schema.String, Schema.Number).annotations({
  jsonSchema: Tool.parametersJsonSchema(ItemParam)
})

/** The parameters of the `plan` tool. */
export const PlanParams = Schema.Struct({
  action: Schema.String.annotations({ description: docs.action, jsonSchema: { enum: [...planActions] } }),
  id: Schema.optional(IdParam(docs.id)),
  text: Schema.optional(Schema.String.annotations({ description: docs.text })),
  status: Schema.optional(StatusParam(docs.status)),
  items: Schema.optional(Schema.Array(ItemEntry).annotations({ description: docs.items }))
})

/** What the model reads back: what changed, then the checklist. */
const resultText = (result: PlanResult): string =>
  result.snapshot.items.length === 0 ? result.summary : `${result.summary}\n${renderPlanPlain(result.snapshot)}`

/** Builds the `plan` tool over the plan it edits. */
export const planTool: Effect.Effect<Tool.Tool, never, Plan> = Effect.map(Plan, (plan) =>
  Tool.make({
    name: "plan",
    annotations: { readOnly: false, destructive: false },
    description,
    shortDescription:
      `Your task checklist, shown to the user live: action=add|update|delete|list, single id/text/status or items (max ${planBatchMax}).`,
    parameters: PlanParams,
    examples: [
      { action: "add", text: "my step" },
      { action: "add", items: [{ text: "a" }, { text: "b" }] },
      { action: "update", id: 1, status: "done" },
      { action: "delete", id: 3 },
      { action: "list" }
    ],
    // A missing action becomes "", which the plan infers itself: only it can
    // tell whether an id already exists (an update) or not (an add).
    inferAction: () => "",
    handler: (params) => Effect.map(plan.apply(params), resultText)
  }))
