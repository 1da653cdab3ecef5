/**
 * The package's name and version, read from `package.json` so there is one
 * place to bump.
 *
 * @module
 */
import packageJson from "../package.json" with { type: "json" }

/** The package version, e.g. `0.1.0`. */
export const version: string = packageJson.version
