/**
 * Builds the web UI page before the tests, so the server under test serves
 * the page of these sources (not one built earlier).
 */
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"

export default function setup(): void {
  const root = fileURLToPath(new URL("../", import.meta.url))
  const built = spawnSync(process.execPath, ["scripts/build-webui.mjs"], { cwd: root, encoding: "utf8" })
  if (built.status !== 0) throw new Error(`building the web UI failed:\n${built.stderr}`)
}
