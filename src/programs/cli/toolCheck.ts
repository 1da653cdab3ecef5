/**
 * The problems of what the settings load from disk besides the file: the
 * external tool manifests and the skills. An agent starts without the
 * broken ones (and logs why); `easyai tools` and `easyai config --check`
 * fail on them, so CI can catch a broken manifest before an agent meets it.
 *
 * @module
 */
import { Effect } from "effect"
import { loadExternalTools } from "../../layers/tools/external/load.js"
import { reservedToolNames } from "../../layers/tools/reserved.js"
import { loadSkills } from "../../layers/workspace/skills.js"
import { get, type Resolved } from "./settings/resolve.js"

/** One line per problem, each naming the file it is about; empty when all is well. */
export const toolProblems = (settings: Resolved) =>
  Effect.gen(function*() {
    const problems: Array<string> = []
    const external = get(settings, "externalTools")
    if (external !== undefined) {
      const loaded = yield* loadExternalTools(external, reservedToolNames)
      problems.push(...loaded.errors.map((error) => `external tools: ${error}`))
    }
    const skills = get(settings, "skills") ?? []
    if (skills.length > 0) {
      const commands = get(settings, "skillCommands")
      const loaded = yield* loadSkills(skills, get(settings, "skillsMode") ?? "readOnDemand", {
        reservedNames: reservedToolNames,
        ...(commands === undefined ? {} : { allowedCommands: commands })
      })
      problems.push(...loaded.errors.map((error) => `skills: ${error}`))
    }
    // One line each: a parser's message may carry the bad text's line breaks.
    return problems.map((problem) => problem.split(/\s*\n\s*/).join(" "))
  })
