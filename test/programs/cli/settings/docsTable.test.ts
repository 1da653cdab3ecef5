/**
 * docs/cli.md's settings table is the one the declarations generate: a
 * setting added, renamed or re-documented without regenerating the page
 * fails here.
 */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { docsPage, markers, renderTable, withTable } from "../../../../src/programs/cli/settings/docsTable.js"
import { declaration, ids } from "../../../../src/programs/cli/settings/resolve.js"

describe("docs/cli.md", () => {
  it("holds the settings table generated from the declarations (regenerate: npx tsx src/programs/cli/settings/docsTable.ts --write)", () => {
    const page = readFileSync(docsPage, "utf8")
    expect(page).toContain(markers[0])
    expect(page).toContain(markers[1])
    expect(withTable(page)).toBe(page)
  })

  it("has a row for every setting, naming its flag, INI key and variable", () => {
    const table = renderTable()
    for (const id of ids) {
      const setting = declaration(id)
      const row = table.split("\n").find((line) => line.endsWith(`| ${setting.doc.replaceAll("|", "\\|")} |`))
      expect(row, id).toBeDefined()
      if (setting.flag !== undefined) expect(row, id).toContain(`--${setting.flag}`)
      if (setting.negation !== undefined) expect(row, id).toContain(`--${setting.negation}`)
      if (setting.ini !== undefined) expect(row, id).toContain(`\`${setting.ini}\``)
      if (setting.env !== undefined) expect(row, id).toContain(`\`${setting.env}\``)
    }
  })
})
