import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

export default defineConfig({
  resolve: {
    // Examples and tests import the package by name, exactly as users do.
    alias: [
      { find: /^easyai\/testing$/, replacement: fileURLToPath(new URL("./src/testing.ts", import.meta.url)) },
      { find: /^easyai$/, replacement: fileURLToPath(new URL("./src/index.ts", import.meta.url)) }
    ]
  },
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/globalSetup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000
  }
})
