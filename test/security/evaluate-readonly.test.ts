/**
 * Attack: `evaluate` is advertised read-only (MCP `readOnlyHint: true`) but
 * its Python could start processes, write, delete, make FIFOs, open sockets
 * and load native code as the server's user.
 *
 * Replayed against the real `evaluate` tool on the real sandbox, on both
 * paths: in bubblewrap (read-only file system, no network) under the audit
 * hook, and with isolation off (the audit hook alone). Every payload must
 * have no effect — no file created, changed or removed, no process started,
 * no connection reaching a loopback listener — and the model must get an
 * error it can read. A last test runs a shell (no audit hook) in the
 * read-only bubblewrap setup, to show that wall holds by itself.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { connect, createServer, type Server } from "node:net"
import * as path from "node:path"
import { Sandbox, ToolRegistry } from "easyai"
import * as SandboxLive from "../../src/layers/sandbox/SandboxLive.js"
import { callTool, hostRegistry, isolationPaths } from "../support/hostTools.js"
import { tempDir } from "../support/tempDir.js"

/** A loopback listener that counts the connections it accepts. */
const listener = Effect.acquireRelease(
  Effect.async<{ readonly server: Server; readonly port: number; readonly accepted: () => number }>((resume) => {
    let count = 0
    const server = createServer((socket) => {
      count++
      socket.destroy()
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resume(Effect.succeed({ server, port, accepted: () => count }))
    })
  }),
  ({ server }) =>
    Effect.async<void>((resume) => {
      server.close(() => resume(Effect.void))
    })
)

/** Connects from this process and waits until the listener has counted it: connections before it have been counted too. */
const connectOnce = (port: number, accepted: () => number) =>
  Effect.gen(function*() {
    const before = accepted()
    yield* Effect.async<void>((resume) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.destroy()
        resume(Effect.void)
      })
      socket.on("error", () => resume(Effect.void))
    })
    for (let attempt = 0; attempt < 300 && accepted() === before; attempt++) yield* Effect.sleep(Duration.millis(10))
  })

/** Files the payloads aim at: a victim file and directory in the root, markers outside it. */
const fixture = () => {
  const root = tempDir()
  const outside = tempDir()
  writeFileSync(path.join(root, "victim.txt"), "original\n")
  mkdirSync(path.join(root, "victim-dir"))
  writeFileSync(path.join(root, "victim-dir", "keep.txt"), "keep\n")
  return { root, outside, marker: (name: string) => path.join(outside, name) }
}

for (const { isolate, path: isolation } of isolationPaths) {
  describe(`evaluate is read-only — ${isolation}`, () => {
    it.live("no payload has an effect, and each is refused with a readable error", () => {
      const { root, outside, marker } = fixture()
      return Effect.scoped(Effect.gen(function*() {
        const { port, accepted } = yield* listener
        const payloads: ReadonlyArray<readonly [string, string]> = [
          ["os.system", `import os; os.system("touch ${marker("system")}")`],
          ["subprocess", `import subprocess; subprocess.run(["touch", "${marker("subprocess")}"])`],
          ["os.fork + exec", `import os\nif os.fork() == 0:\n    os.execv("/usr/bin/touch", ["touch", "${marker("fork")}"])`],
          ["os.posix_spawn", `import os; os.posix_spawn("/usr/bin/touch", ["touch", "${marker("spawn")}"], {})`],
          ["_io.FileIO write", `import _io; _io.FileIO("${path.join(root, "created.txt")}", "w").write(b"x")`],
          ["open for append", `open("victim.txt", "a").write("changed")`],
          ["os.open with write flags", `import os; os.open("victim.txt", os.O_WRONLY | os.O_TRUNC)`],
          ["shutil.rmtree", `import shutil; shutil.rmtree("victim-dir")`],
          ["os.remove", `import os; os.remove("victim.txt")`],
          ["os.rename", `import os; os.rename("victim.txt", "moved.txt")`],
          ["os.mkfifo", `import os; os.mkfifo("fifo")`],
          ["os.mkdir", `import os; os.mkdir("${marker("dir")}")`],
          ["os.symlink", `import os; os.symlink("/etc/passwd", "link")`],
          ["os.chmod", `import os; os.chmod("victim.txt", 0o777)`],
          ["socket", `import socket; socket.create_connection(("127.0.0.1", ${port})).send(b"x")`],
          ["ctypes", `import ctypes; ctypes.CDLL(None).system(b"touch ${marker("ctypes")}")`],
          ["a second audit hook", `import sys, os; sys.addaudithook(lambda *a: None); os.system("touch ${marker("hook")}")`],
          ["sqlite3 file", `import sqlite3; sqlite3.connect("${marker("db.sqlite")}").execute("create table t (x)")`]
        ]
        for (const [name, code] of payloads) {
          const result = yield* callTool("evaluate", { code })
          expect(result.isError, name).toBe(true)
          expect(result.content, name).toContain("PermissionError: evaluate")
          expect(result.content, name).toContain("is refused")
        }
        // Nothing happened: no marker outside, the victims intact, nothing new in the root.
        expect(readFileSync(path.join(root, "victim.txt"), "utf8")).toBe("original\n")
        expect(readFileSync(path.join(root, "victim-dir", "keep.txt"), "utf8")).toBe("keep\n")
        for (const name of ["system", "subprocess", "fork", "spawn", "dir", "ctypes", "hook", "db.sqlite"]) {
          expect(existsSync(marker(name)), name).toBe(false)
        }
        for (const name of ["created.txt", "moved.txt", "fifo", "link"]) expect(existsSync(path.join(root, name)), name).toBe(false)
        yield* connectOnce(port, accepted)
        expect(accepted()).toBe(1) // ours alone
        expect(outside).not.toBe(root)
      }).pipe(Effect.provide(hostRegistry({ root, isolate }))))
    })

    it.live("is advertised read-only, and its description names the guard that holds it", () =>
      Effect.gen(function*() {
        const spec = (yield* (yield* ToolRegistry).specs).find((entry) => entry.name === "evaluate")
        expect(spec?.annotations?.readOnly).toBe(true)
        expect(spec?.description).toContain(
          isolate === "on"
            ? "Runs in a read-only bubblewrap sandbox with no network, under a Python audit hook."
            : "Guarded by a Python audit hook (no OS sandbox on this host)."
        )
      }).pipe(Effect.provide(hostRegistry({ root: tempDir(), isolate }))))

    it.live("still computes and reads files inside the sandbox", () => {
      const { root } = fixture()
      return Effect.gen(function*() {
        const result = yield* callTool("evaluate", {
          code: "import json, collections\nprint(open('victim.txt').read().strip(), sum(range(10)), json.dumps(collections.Counter('aab')))"
        })
        expect(result).toMatchObject({ isError: false, content: "original 45 {\"a\": 2, \"b\": 1}\n[exit code 0]" })
      }).pipe(Effect.provide(hostRegistry({ root, isolate })))
    })
  })
}

describe("the read-only bubblewrap setup holds without the audit hook", () => {
  it.live("a shell in it can write nothing, not even in the sandbox, and reach no listener", () => {
    const { root, marker } = fixture()
    return Effect.scoped(Effect.gen(function*() {
      const { port, accepted } = yield* listener
      const sandbox = yield* Sandbox
      const result = yield* sandbox.run({
        command: "/bin/sh",
        args: ["-c", [
          `touch ${marker("sh")} 2>&1`,
          "echo changed > victim.txt",
          "rm -rf victim-dir",
          "mkfifo fifo",
          `python3 -I -c "import socket; socket.create_connection(('127.0.0.1', ${port}))" 2>&1 | tail -1`,
          "echo tmp > /tmp/private && cat /tmp/private"
        ].join("; ")],
        env: { PATH: "/usr/bin:/bin" },
        timeout: Duration.seconds(20),
        killGrace: Duration.millis(200),
        maxOutputBytes: 16_384,
        stderr: "merge",
        confine: "readOnly"
      })
      expect(result.output).toContain("Read-only file system")
      // Its own network namespace: the host's loopback listener is not there.
      expect(result.output).toMatch(/Connection refused|Network is unreachable/)
      // The private /tmp is writable, and gone with the call.
      expect(result.output).toContain("tmp\n")
      expect(existsSync(marker("sh"))).toBe(false)
      expect(readFileSync(path.join(root, "victim.txt"), "utf8")).toBe("original\n")
      expect(existsSync(path.join(root, "victim-dir", "keep.txt"))).toBe(true)
      expect(existsSync(path.join(root, "fifo"))).toBe(false)
      expect(existsSync("/tmp/private")).toBe(false)
      yield* connectOnce(port, accepted)
      expect(accepted()).toBe(1)
    }).pipe(Effect.provide(SandboxLive.layer({ root, isolate: "on" }))))
  })
})
