/**
 * A real browser for the web UI's tests: Debian's Chromium (or
 * `EASYAI_CHROMIUM`), headless, driven by playwright-core, which downloads
 * nothing. `scripts/install-test-deps.sh` installs it.
 */
import { Effect, type Scope } from "effect"
import { existsSync, mkdirSync } from "node:fs"
import * as path from "node:path"
import { type Browser, chromium, type Page } from "playwright-core"
import { projectRoot } from "./process.js"

/** The Chromium binary the tests drive. */
export const chromiumPath = process.env["EASYAI_CHROMIUM"] ?? "/usr/bin/chromium"

/** Where screenshots are kept after a run, as artifacts (not committed). */
export const artifactsDir = path.join(projectRoot, "test-results")

/** A phone's viewport and a desktop's. */
export const viewports = {
  phone: { width: 390, height: 844 },
  desktop: { width: 1280, height: 800 }
} as const

/** A headless Chromium for the scope. */
export const browser: Effect.Effect<Browser, Error, Scope.Scope> = Effect.acquireRelease(
  Effect.tryPromise({
    try: () => {
      if (!existsSync(chromiumPath)) {
        throw new Error(`no Chromium at ${chromiumPath}: run scripts/install-test-deps.sh, or set EASYAI_CHROMIUM`)
      }
      // --no-sandbox: CI runs as root, where Chromium's sandbox cannot start.
      return chromium.launch({ executablePath: chromiumPath, headless: true, args: ["--no-sandbox"] })
    },
    catch: (error) => (error instanceof Error ? error : new Error(String(error)))
  }),
  (opened) => Effect.promise(() => opened.close())
)

/** A fresh page (its own storage) in `opened`, at `viewport`, closed with the scope. */
export const newPage = (opened: Browser, viewport: { readonly width: number; readonly height: number } = viewports.desktop) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const context = await opened.newContext({ viewport })
      return context.newPage()
    }),
    (page) => Effect.promise(() => page.context().close())
  )

/** Runs a Playwright step as an Effect (a failed expectation fails the test with its message). */
export const step = <A>(run: () => Promise<A>): Effect.Effect<A, Error> =>
  Effect.tryPromise({ try: run, catch: (error) => (error instanceof Error ? error : new Error(String(error))) })

/** Saves a screenshot of `page` as `test-results/<name>.png`; the file's path. */
export const screenshot = (page: Page, name: string) =>
  step(async () => {
    mkdirSync(artifactsDir, { recursive: true })
    const file = path.join(artifactsDir, `${name}.png`)
    await page.screenshot({ path: file, fullPage: false })
    return file
  })
