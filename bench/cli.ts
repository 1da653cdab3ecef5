/**
 * Cold start of the `easyai` command beside node-llama-cpp's own CLI, timed
 * from outside as whole processes: `easyai --help` (the installed bin,
 * dist/cli/easyai.js, so run `npm run build` first), the anchor
 * `node-llama-cpp --help`, and the floor `node -e 0`. One warm-up each, then
 * `--rounds` rounds in which the three take turns, so a change in the
 * machine's load touches all of them; medians.
 *
 *   npx tsx bench/cli.ts [--rounds=9]
 *
 * Progress lines start with "# "; the last line is one JSON object.
 */
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { commandLine, wholeNumber } from "./commandLine.js"
import { log, median, round2 } from "./stats.js"

const root = fileURLToPath(new URL("../", import.meta.url))
const rounds = wholeNumber("rounds", commandLine().option("rounds", "9"), 1)

const commands = {
  easyai: [path.join(root, "dist/cli/easyai.js"), "--help"],
  nodeLlamaCpp: [path.join(root, "node_modules/node-llama-cpp/dist/cli/cli.js"), "--help"],
  floor: ["-e", "0"]
} as const

const [easyaiEntry] = commands.easyai
if (!existsSync(easyaiEntry)) {
  console.error(`${easyaiEntry} is missing: run npm run build first`)
  process.exit(2)
}

/** Seconds one run of `node …args` takes, start to exit; a failing run stops the benchmark. */
const time = (args: ReadonlyArray<string>): number => {
  const start = process.hrtime.bigint()
  const run = spawnSync(process.execPath, args, { cwd: root, stdio: ["ignore", "ignore", "pipe"] })
  const seconds = Number(process.hrtime.bigint() - start) / 1e9
  if (run.status !== 0) throw new Error(`node ${args.join(" ")} exited ${run.status}: ${run.stderr.toString()}`)
  return seconds
}

const names = Object.keys(commands) as Array<keyof typeof commands>
for (const name of names) time(commands[name])
const samples = Object.fromEntries(names.map((name) => [name, [] as Array<number>])) as Record<keyof typeof commands, Array<number>>
for (let round = 0; round < rounds; round++) {
  for (const name of names) samples[name].push(time(commands[name]))
  log(`round ${round + 1}:`, names.map((name) => `${name} ${(samples[name].at(-1) ?? 0).toFixed(3)} s`).join(" · "))
}
const seconds = Object.fromEntries(names.map((name) => [name, Math.round(median(samples[name]) * 1000) / 1000]))
const ratio = round2(median(samples.easyai) / median(samples.nodeLlamaCpp))
log(`easyai --help ${seconds["easyai"]} s · node-llama-cpp --help ${seconds["nodeLlamaCpp"]} s · floor ${seconds["floor"]} s · ratio ${ratio}`)
console.log(JSON.stringify({ bench: "cli-cold-start", rounds, seconds, ratio }))
