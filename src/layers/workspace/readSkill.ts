/**
 * The `read_skill` tool of the `readOnDemand` mode: returns one skill's
 * instructions by name.
 *
 * @module
 */
import { Effect, Schema } from "effect"
import { closestNames } from "../../domain/closestNames.js"
import { sanitizeSingleLine } from "../../domain/Sanitize.js"
import * as Tool from "../../domain/Tool.js"
import { readSkillName, shown, type SkillDocument } from "./skillFile.js"

const readSkillDescription = `Load the full instructions of one of your skills.
Call it when a task matches a skill listed under "Available skills" in your instructions, before you act on that task.

Parameters:
  skill_name  Required. The skill's name, exactly as listed.

Output: the skill's instructions, in Markdown. Follow them.

Errors: an unknown name returns the list of available skills.`

/**
 * The `read_skill` tool over `documents`: returns a skill's instructions, and
 * for an unknown name the available names (closest first). A name that
 * differs only in case or surrounding spaces is forgiven when it is unambiguous.
 */
export const readSkillTool = (documents: ReadonlyArray<SkillDocument>): Tool.Tool => {
  const byName = new Map(documents.map((document) => [document.name, document]))
  const names = documents.map((document) => document.name)
  return Tool.make({
    name: readSkillName,
    description: readSkillDescription,
    shortDescription: "Load the full instructions of a skill listed under Available skills (skill_name=<name>).",
    parameters: Schema.Struct({
      skill_name: Schema.String.annotations({ description: "Required. The skill's name, exactly as listed." })
    }),
    ...(names[0] === undefined ? {} : { examples: [{ skill_name: names[0] }] }),
    handler: ({ skill_name }) => {
      const wanted = skill_name.trim()
      const folded = names.filter((name) => name.toLowerCase() === wanted.toLowerCase())
      const forgiven = folded.length === 1 ? folded[0] : undefined
      const document = byName.get(wanted) ?? (forgiven === undefined ? undefined : byName.get(forgiven))
      if (document !== undefined) return Effect.succeed(`# Skill: ${document.name}\n\n${document.body}`)
      const close = closestNames(wanted, names)
      return Tool.fail(
        [
          `unknown skill ${shown(sanitizeSingleLine(wanted, 64))}.`,
          close.length > 0 ? ` Did you mean ${close.map((name) => JSON.stringify(name)).join(" or ")}?` : "",
          ` Available skills: ${names.join(", ")}.`,
          names[0] === undefined
            ? ""
            : ` Example call: ${readSkillName}({"skill_name":${JSON.stringify(close[0] ?? names[0])}})`
        ].join("")
      )
    }
  })
}
