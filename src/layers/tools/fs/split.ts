/**
 * The split surface: one focused tool per operation (`fs_read`, `fs_write`,
 * …), which small models dispatch more reliably than an `action` field.
 *
 * @module
 */
import type { Tool } from "../../../domain/Tool.js"
import type { Service as SandboxService } from "../../../services/Sandbox.js"
import { operations } from "./operations.js"

/** The split fs tools on `sandbox`, in manual order. */
export const splitTools = (sandbox: SandboxService): ReadonlyArray<Tool> =>
  operations.map((operation) => operation.tool(sandbox))
