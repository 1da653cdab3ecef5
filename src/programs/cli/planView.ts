/**
 * The plan for a person's terminal: the checklist's boxes in colour.
 *
 * @module
 */
import type { PlanSnapshot, PlanStatus } from "../../domain/plan.js"
import { planBoxes, renderPlanPlain } from "../../layers/tools/planChecklist.js"

const sgr = (codes: string): string => `\u001b[${codes}m`
const resetStyle = sgr("0")

/** The terminal style of each status: bold while active, dim once settled, red on error. */
const styles: Readonly<Record<Exclude<PlanStatus, "deleted">, string>> = {
  pending: sgr("1"),
  working: sgr("1;36"),
  done: sgr("2"),
  error: sgr("31")
}

/**
 * The plan for a person's terminal: one item a line (`[x] 3. text`), bold
 * for pending, bold cyan for working, dim for done, red for error, and dim
 * with the text struck through for deleted. Item text was stripped of
 * control characters when stored, so a model cannot smuggle escape
 * sequences in.
 */
export const renderPlanAnsi = (snapshot: PlanSnapshot): string =>
  snapshot.items.length === 0
    ? `${sgr("2")}(the plan is empty)${resetStyle}`
    : snapshot.items
      .map((item) =>
        item.status === "deleted"
          ? `${sgr("2")}${planBoxes.deleted} ${item.id}. ${sgr("9")}${item.text}${resetStyle}`
          : `${styles[item.status]}${planBoxes[item.status]} ${item.id}. ${item.text}${resetStyle}`
      )
      .join("\n")

/** {@link renderPlanAnsi} when `color` is true, else {@link renderPlanPlain}. */
export const renderPlan = (snapshot: PlanSnapshot, options: { readonly color: boolean }): string =>
  options.color ? renderPlanAnsi(snapshot) : renderPlanPlain(snapshot)
