import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

export default defineConfig({
  resolve: {
    // Examples and tests import the package by name, exactly as users do.
    alias: { easyai: fileURLToPath(new URL("./src/index.ts", import.meta.url)) }
  },
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/globalSetup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000
  }
})
