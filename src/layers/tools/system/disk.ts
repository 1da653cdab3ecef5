/**
 * `system_disk_usage`: `df` worth of figures. The mounted filesystems come
 * from `/proc/mounts` (pseudo filesystems left out); each one's figures
 * from `statfs`. Beyond Linux, or for one `path`, the filesystem holding
 * that path.
 *
 * @module
 */
import { Effect, Option, Schema } from "effect"
import { statfs } from "node:fs/promises"
import { isAbsolute } from "node:path"
import * as Tool from "../../../domain/Tool.js"
import { ToolResult } from "../../../domain/ToolCall.js"
import { bytesText, percent, readText } from "./host.js"

/** The most filesystems one answer lists. */
const maxFilesystems = 64

/** Filesystems that hold no user data: kernel interfaces, not disks. */
const pseudoTypes = new Set([
  "proc", "sysfs", "devpts", "cgroup", "cgroup2", "mqueue", "debugfs", "tracefs", "securityfs", "pstore", "bpf",
  "configfs", "fusectl", "hugetlbfs", "autofs", "binfmt_misc", "nsfs", "rpc_pipefs", "selinuxfs", "efivarfs", "devtmpfs"
])

const description = `Report disk usage, like df: for each mounted filesystem its mount point, device, type, size, used and
available space, use in percent and inodes. Pseudo filesystems (proc, sysfs, cgroup, …) are left out.
Use it to answer "is a disk full?", "where is the space?", "which filesystem holds this path?".

Parameters:
  path  Optional. Report only the filesystem holding this absolute path, e.g. "/var/lib". Default: every mounted
        filesystem (up to ${maxFilesystems}).

Output, one line per filesystem:
  /            /dev/nvme0n1p2  ext4   457.9 GiB  212.4 GiB used  222.2 GiB free  48.9%

Examples:
  {}
  {"path": "/home"}

Errors: a path that does not exist says so.`

const Filesystem = Schema.Struct({
  mount: Schema.String,
  device: Schema.String,
  type: Schema.String,
  sizeBytes: Schema.Number,
  usedBytes: Schema.Number,
  availableBytes: Schema.Number.annotations({ description: "What an unprivileged user can still write" }),
  usedPercent: Schema.Number.annotations({ description: "used / (used + available), as df computes it" }),
  inodes: Schema.Struct({ total: Schema.Number, free: Schema.Number })
})
type Filesystem = typeof Filesystem.Type

const DiskData = Schema.Struct({ filesystems: Schema.Array(Filesystem) })
type DiskData = typeof DiskData.Type

interface Mount {
  readonly device: string
  readonly mount: string
  readonly type: string
}

/** `/proc/mounts` writes a space, tab, newline or backslash in a field as an octal escape (`\040`). */
const unescape = (field: string): string =>
  field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)))

/** The real filesystems of `/proc/mounts`, each mount point once (the last mount over it is what is seen). */
const mountsOf = (text: string): ReadonlyArray<Mount> => {
  const byPoint = new Map<string, Mount>()
  for (const line of text.split("\n")) {
    const [device, mount, type] = line.split(" ")
    if (device === undefined || mount === undefined || type === undefined || pseudoTypes.has(type)) continue
    const point = unescape(mount)
    byPoint.delete(point)
    byPoint.set(point, { device: unescape(device), mount: point, type })
  }
  return [...byPoint.values()]
}

/** A mount's figures, or none when it cannot be read or holds no blocks. */
const usage = (mount: Mount): Effect.Effect<Option.Option<Filesystem>> =>
  Effect.tryPromise(() => statfs(mount.mount)).pipe(
    Effect.option,
    Effect.map(Option.filter((stats) => stats.blocks > 0)),
    Effect.map(Option.map((stats) => {
      const used = (stats.blocks - stats.bfree) * stats.bsize
      const available = stats.bavail * stats.bsize
      return {
        ...mount,
        sizeBytes: stats.blocks * stats.bsize,
        usedBytes: used,
        availableBytes: available,
        usedPercent: percent(used, used + available),
        inodes: { total: stats.files, free: stats.ffree }
      }
    }))
  )

/** The mount holding `path`: the longest mount point that is `path` or a directory above it. */
const holding = (mounts: ReadonlyArray<Mount>, path: string): Mount | undefined =>
  mounts
    .filter((mount) => path === mount.mount || path.startsWith(mount.mount.endsWith("/") ? mount.mount : `${mount.mount}/`))
    .sort((a, b) => b.mount.length - a.mount.length)[0]

const read = (path: string | undefined): Effect.Effect<DiskData, Tool.HandlerError> =>
  Effect.gen(function*() {
    const mounts = Option.match(yield* readText("/proc/mounts"), { onNone: () => [], onSome: mountsOf })
    if (path !== undefined) {
      if (!isAbsolute(path)) return yield* Tool.fail(`path must be absolute, e.g. {"path": "/${path}"}; got "${path}".`)
      const exists = yield* Effect.tryPromise(() => statfs(path)).pipe(Effect.option)
      if (Option.isNone(exists)) {
        return yield* Tool.fail(`no such path: "${path}". Give an absolute path that exists, e.g. {"path": "/"}, or none for every filesystem.`)
      }
      const mount = holding(mounts, path) ?? { device: "unknown", mount: path, type: "unknown" }
      return { filesystems: Option.toArray(yield* usage(mount)) }
    }
    const all = mounts.length > 0 ? mounts : [{ device: "unknown", mount: "/", type: "unknown" }]
    const found = yield* Effect.forEach(all.slice(0, maxFilesystems), usage, { concurrency: 8 })
    return { filesystems: found.flatMap(Option.toArray) }
  })

const render = (data: DiskData): string => {
  if (data.filesystems.length === 0) return "No filesystem with blocks to report."
  const width = Math.max(...data.filesystems.map((fs) => fs.mount.length))
  return data.filesystems.map((fs) =>
    `${fs.mount.padEnd(width)}  ${fs.device}  ${fs.type}  ${bytesText(fs.sizeBytes)}  ${bytesText(fs.usedBytes)} used  ${
      bytesText(fs.availableBytes)
    } free  ${fs.usedPercent.toFixed(1)}%`
  ).join("\n")
}

/** `system_disk_usage`: the mounted filesystems' space, like `df`. */
export const systemDiskUsage: Tool.Tool = Tool.make({
  name: "system_disk_usage",
  description,
  shortDescription: "Disk usage like df: each filesystem's size, used, free and use % (optional path=\"/home\").",
  parameters: Schema.Struct({
    path: Schema.optional(
      Schema.String.pipe(Schema.minLength(1), Schema.maxLength(4096)).annotations({
        description: "Optional. Only the filesystem holding this absolute path. Default: every mounted filesystem."
      })
    )
  }),
  examples: [{}, { path: "/home" }],
  annotations: { readOnly: true, openWorld: false },
  outputSchema: Tool.parametersJsonSchema(DiskData),
  handler: ({ path }) => Effect.map(read(path), (data) => ToolResult.data(data, render(data)))
})
