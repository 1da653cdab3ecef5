/**
 * The plan as the model reads it, in the `plan` tool's replies: a markdown
 * checklist.
 *
 * @module
 */
import type { PlanSnapshot, PlanStatus } from "../../domain/plan.js"

/** Each status's box, `[ ]` to `[-]`, the same for the model and for a person. */
export const planBoxes: Readonly<Record<PlanStatus, string>> = {
  pending: "[ ]",
  working: "[~]",
  done: "[x]",
  error: "[!]",
  deleted: "[-]"
}

/**
 * The plan as the model reads it: a markdown checklist, one item a line
 * (`- [ ] 1. text`, `[~]` working, `[x]` done, `[!]` error, and
 * `- [-] 4. ~~text~~` deleted). Never contains escape sequences.
 */
export const renderPlanPlain = (snapshot: PlanSnapshot): string =>
  snapshot.items.length === 0
    ? "(the plan is empty)"
    : snapshot.items
      .map((item) =>
        `- ${planBoxes[item.status]} ${item.id}. ${item.status === "deleted" ? `~~${item.text}~~` : item.text}`
      )
      .join("\n")
