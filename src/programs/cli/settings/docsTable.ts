/**
 * The settings table of docs/cli.md, generated from the declarations. A
 * test regenerates it and fails when the page is stale; write it with
 * `npx tsx src/programs/cli/settings/docsTable.ts --write`.
 *
 * @module
 */
import { readFileSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { flagColumn, defaultText } from "./help.js"
import { declaration, ids } from "./resolve.js"
import { programSection, topics, topicTitle } from "./Setting.js"

/** The markers around the generated table in docs/cli.md. */
export const markers = ["<!-- settings:begin (generated from src/programs/cli/settings/declarations.ts) -->", "<!-- settings:end -->"] as const

const cell = (text: string): string => text.replaceAll("|", "\\|")

const code = (text: string): string => (text === "" ? "" : `\`${cell(text)}\``)

/** The table, one section per topic. */
export const renderTable = (): string => {
  const lines: Array<string> = []
  for (const topic of topics) {
    const here = ids.map(declaration).filter((setting) => setting.topic === topic)
    if (here.length === 0) continue
    lines.push(`#### ${topicTitle[topic]}`, "", "| flag | aliases | INI key | env | programs | default | |", "|---|---|---|---|---|---|---|")
    for (const setting of here) {
      const aliases = [...setting.aliases, ...setting.negationAliases].map(code).join(" ")
      const ini = setting.ini === undefined
        ? ""
        : `${code(setting.ini)}${setting.iniAliases.length > 0 ? ` (${setting.iniAliases.map(code).join(" ")})` : ""} in ${
          [...(setting.engine ? ["ENGINE", "MODEL_*"] : []), ...new Set(setting.programs.map((program) => programSection[program]))].join(", ")
        }`
      lines.push(
        `| ${code(flagColumn(setting))} | ${aliases} | ${ini} | ${code(setting.env ?? "")} | ${setting.programs.join(", ")} | ${cell(defaultText(setting))} | ${cell(setting.doc)} |`
      )
    }
    lines.push("")
  }
  return lines.join("\n").trimEnd()
}

/** `text` (a docs page) with the table between the markers replaced. */
export const withTable = (text: string): string => {
  const start = text.indexOf(markers[0])
  const end = text.indexOf(markers[1])
  if (start < 0 || end < start) return text
  return `${text.slice(0, start + markers[0].length)}\n\n${renderTable()}\n\n${text.slice(end)}`
}

/** docs/cli.md's path. */
export const docsPage = fileURLToPath(new URL("../../../../docs/cli.md", import.meta.url))

if (process.argv.includes("--write") && process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(docsPage, withTable(readFileSync(docsPage, "utf8")))
}
