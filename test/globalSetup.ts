/**
 * Builds what the tests start, from these sources: the web UI page the
 * server serves, and the bundled `easyai` command the process tests run
 * (started as a user starts it, in a fraction of tsx's start-up time).
 */
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { bundleCli } from "../scripts/bundle-cli.mjs"

export default async function setup(): Promise<void> {
  const root = fileURLToPath(new URL("../", import.meta.url))
  const built = spawnSync(process.execPath, ["scripts/build-webui.mjs"], { cwd: root, encoding: "utf8" })
  if (built.status !== 0) throw new Error(`building the web UI failed:\n${built.stderr}`)
  await bundleCli("src/programs/cli/main.ts")
}
