/**
 * The GGUF models the engine tests run against: a tiny model written here
 * (so a fresh clone needs nothing else), every model in `../shared/models/`
 * when that folder exists, and `EASYAI_TEST_MODEL` when set.
 */
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import type { EngineConfig } from "easyai"
import { projectRoot } from "./process.js"
import { tinyGgufBytes } from "./tinyGguf.js"

/** A model under test. */
export interface TestModel {
  readonly name: string
  readonly path: string
}

const writeTiny = (): TestModel => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "easyai-model-")), "easyai-tiny.gguf")
  writeFileSync(file, tinyGgufBytes())
  return { name: "easyai-tiny (generated)", path: file }
}

const sharedModels = (): ReadonlyArray<TestModel> => {
  const folder = path.resolve(projectRoot, "../shared/models")
  if (!existsSync(folder)) return []
  return readdirSync(folder)
    .filter((file) => file.endsWith(".gguf"))
    .sort()
    .map((file) => ({ name: file, path: path.join(folder, file) }))
}

const envModel = (): ReadonlyArray<TestModel> => {
  const file = process.env["EASYAI_TEST_MODEL"]
  return file === undefined || file === "" ? [] : [{ name: `EASYAI_TEST_MODEL (${path.basename(file)})`, path: file }]
}

/** Every model to test, the generated one first. */
export const testModels: ReadonlyArray<TestModel> = [writeTiny(), ...sharedModels(), ...envModel()]

/** The engine settings tests use: one thread (tiny models crawl with more on 2 cores), greedy-friendly. */
export const engineConfig = (model: TestModel, overrides: Partial<EngineConfig> = {}): EngineConfig => ({
  modelPath: model.path,
  threads: 1,
  gpuLayers: 0,
  contextSize: 2048,
  ...overrides
})

/**
 * A stop sequence a greedy rerun of `text` reaches after its first
 * character: its first two printable ASCII characters in a row. A word
 * would do on a story model, but the generated model writes bytes that are
 * not whole characters, which no stop sequence can match.
 */
export const reachableStop = (text: string): string | undefined => text.slice(1).match(/[!-~]{2}/)?.[0]
