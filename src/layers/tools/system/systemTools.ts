/**
 * The `system_*` observability tools: CPU load, memory and swap, disk usage
 * and the top processes. Read-only; they read the host itself (`os`,
 * `statfs`, `/proc`), not the sandbox, so a program offers them where the
 * person asking owns the machine (the chat), not to network clients.
 *
 * @module
 */
import type { Tool } from "../../../domain/Tool.js"
import { systemDiskUsage } from "./disk.js"
import { systemLoad } from "./load.js"
import { systemMemory } from "./memory.js"
import { systemProcesses } from "./processes.js"

/** The four `system_*` tools, in catalogue order. */
export const systemTools: ReadonlyArray<Tool> = [systemLoad, systemMemory, systemDiskUsage, systemProcesses]
