/**
 * How the hybrid shell reads a line, where `cd` goes, and how the prompt
 * shows a directory.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { cdTarget, parseShellLine, type ShellPlace, tildePath } from "../../../src/programs/cli/shellLine.js"

const env = { HOME: "/home/ann", NAME: "docs", PATH: "/usr/bin" }

const place: ShellPlace = { cwd: "/work/project", home: "/home/ann", previous: undefined }

/** A line as the shell reads it in `env`. */
const read = (line: string) => parseShellLine(line, env)

/** Where `cd <line's target>` goes from `place`. */
const cd = (line: string, at: ShellPlace = place) => {
  const parsed = read(line)
  if (parsed._tag !== "Cd") throw new Error(`not a cd: ${JSON.stringify(parsed)}`)
  return cdTarget(parsed.target, at)
}

describe("parseShellLine", () => {
  it.effect("a blank line is Blank", () =>
    Effect.sync(() => {
      expect(read("")).toEqual({ _tag: "Blank" })
      expect(read("   \t ")).toEqual({ _tag: "Blank" })
    }))

  it.effect("> text asks the model, without the > and surrounding blanks", () =>
    Effect.sync(() => {
      expect(read("> what is here?")).toEqual({ _tag: "Ask", text: "what is here?" })
      expect(read("  >explain ls -la  ")).toEqual({ _tag: "Ask", text: "explain ls -la" })
      expect(read(">")).toEqual({ _tag: "Ask", text: "" })
      expect(read(">   ")).toEqual({ _tag: "Ask", text: "" })
    }))

  it.effect("cd alone, with a word, or with one quoted word is Cd", () =>
    Effect.sync(() => {
      expect(read("cd")).toEqual({ _tag: "Cd", target: undefined })
      expect(read("  cd  ")).toEqual({ _tag: "Cd", target: undefined })
      expect(read("cd ~")).toEqual({ _tag: "Cd", target: "~" })
      expect(read("cd ~/x")).toEqual({ _tag: "Cd", target: "~/x" })
      expect(read("cd -")).toEqual({ _tag: "Cd", target: "-" })
      expect(read("cd \"my dir\"")).toEqual({ _tag: "Cd", target: "my dir" })
      expect(read("cd 'my dir'")).toEqual({ _tag: "Cd", target: "my dir" })
      expect(read("cd my\\ dir")).toEqual({ _tag: "Cd", target: "my dir" })
      expect(read("cd \"a (1)\"")).toEqual({ _tag: "Cd", target: "a (1)" })
    }))

  it.effect("$NAME and ${NAME} expand from the environment, except in single quotes; an unset one is empty", () =>
    Effect.sync(() => {
      expect(read("cd $HOME/x")).toEqual({ _tag: "Cd", target: "/home/ann/x" })
      expect(read("cd \"${NAME}\"/y")).toEqual({ _tag: "Cd", target: "docs/y" })
      expect(read("cd '$HOME'")).toEqual({ _tag: "Cd", target: "$HOME" })
      expect(read("cd /srv/${MISSING}z")).toEqual({ _tag: "Cd", target: "/srv/z" })
    }))

  it.effect("cd with two directories is Invalid", () =>
    Effect.sync(() => {
      expect(read("cd a b")).toEqual({ _tag: "Invalid", message: "cd: too many arguments" })
      expect(read("cd \"a\" \"b\"")).toEqual({ _tag: "Invalid", message: "cd: too many arguments" })
    }))

  it.effect("a builtin with an operator, a glob or a comment goes to $SHELL whole", () =>
    Effect.sync(() => {
      expect(read("cd x && ls")).toEqual({ _tag: "Run", command: "cd x && ls" })
      expect(read("cd x; ls")).toEqual({ _tag: "Run", command: "cd x; ls" })
      expect(read("cd src*")).toEqual({ _tag: "Run", command: "cd src*" })
      expect(read("export A=1; ls")).toEqual({ _tag: "Run", command: "export A=1; ls" })
      expect(read("unset A # done")).toEqual({ _tag: "Run", command: "unset A # done" })
    }))

  it.effect("export NAME=value … is Export, quotes dropped", () =>
    Effect.sync(() => {
      expect(read("export A=1 B=\"two words\" C='x'")).toEqual({
        _tag: "Export",
        assignments: [["A", "1"], ["B", "two words"], ["C", "x"]]
      })
      expect(read("export EMPTY=")).toEqual({ _tag: "Export", assignments: [["EMPTY", ""]] })
      expect(read("export\tPATH_2=/a:/b")).toEqual({ _tag: "Export", assignments: [["PATH_2", "/a:/b"]] })
    }))

  it.effect("export expands $VAR, and ~ at the start of a value or after a colon", () =>
    Effect.sync(() => {
      expect(read("export PATH=$PATH:~/bin")).toEqual({ _tag: "Export", assignments: [["PATH", "/usr/bin:/home/ann/bin"]] })
      expect(read("export DIR=~ OTHER=a~b")).toEqual({ _tag: "Export", assignments: [["DIR", "/home/ann"], ["OTHER", "a~b"]] })
      expect(read("export LITERAL='$PATH'")).toEqual({ _tag: "Export", assignments: [["LITERAL", "$PATH"]] })
    }))

  it.effect("export NAME without a value changes nothing (every variable is exported)", () =>
    Effect.sync(() => {
      expect(read("export A")).toEqual({ _tag: "Export", assignments: [] })
      expect(read("export A B=2")).toEqual({ _tag: "Export", assignments: [["B", "2"]] })
    }))

  it.effect("a bad export is Invalid and names the bad word", () =>
    Effect.sync(() => {
      expect(read("export 1X=2")).toEqual({ _tag: "Invalid", message: "export: expected NAME=value, got 1X=2" })
      expect(read("export A=1 -x")).toEqual({ _tag: "Invalid", message: "export: expected NAME=value, got -x" })
    }))

  it.effect("export alone goes to $SHELL (it lists the environment)", () =>
    Effect.sync(() => {
      expect(read("export")).toEqual({ _tag: "Run", command: "export" })
    }))

  it.effect("unset names … is Unset; alone or with a bad name it is Invalid", () =>
    Effect.sync(() => {
      expect(read("unset A B")).toEqual({ _tag: "Unset", names: ["A", "B"] })
      expect(read("unset")).toEqual({ _tag: "Invalid", message: "unset: expected a variable name" })
      expect(read("unset 1x")).toEqual({ _tag: "Invalid", message: "unset: not a variable name: 1x" })
      expect(read("unset A 1x")).toEqual({ _tag: "Invalid", message: "unset: not a variable name: 1x" })
    }))

  it.effect("anything else is a command for $SHELL, as typed (trimmed)", () =>
    Effect.sync(() => {
      expect(read("ls -la")).toEqual({ _tag: "Run", command: "ls -la" })
      expect(read("  echo hi > out.txt  ")).toEqual({ _tag: "Run", command: "echo hi > out.txt" })
      expect(read("cdx")).toEqual({ _tag: "Run", command: "cdx" })
      expect(read("exporter A=1")).toEqual({ _tag: "Run", command: "exporter A=1" })
      expect(read("/usr/bin/env")).toEqual({ _tag: "Run", command: "/usr/bin/env" })
    }))
})

describe("cdTarget", () => {
  it.effect("cd alone and cd ~ go home; cd ~/x under it", () =>
    Effect.sync(() => {
      expect(cd("cd")).toEqual({ _tag: "Dir", path: "/home/ann" })
      expect(cd("cd ~")).toEqual({ _tag: "Dir", path: "/home/ann" })
      expect(cd("cd ~/x")).toEqual({ _tag: "Dir", path: "/home/ann/x" })
      expect(cd("cd ~/x/../y")).toEqual({ _tag: "Dir", path: "/home/ann/y" })
    }))

  it.effect("without a home, cd alone or to ~ is Invalid", () =>
    Effect.sync(() => {
      const homeless = { ...place, home: undefined }
      expect(cd("cd", homeless)).toEqual({ _tag: "Invalid", message: "cd: HOME not set" })
      expect(cd("cd ~/x", homeless)).toEqual({ _tag: "Invalid", message: "cd: HOME not set" })
    }))

  it.effect("cd - goes to the previous directory, which it needs", () =>
    Effect.sync(() => {
      expect(cd("cd -", { ...place, previous: "/tmp/before" })).toEqual({ _tag: "Dir", path: "/tmp/before" })
      expect(cd("cd -")).toEqual({ _tag: "Invalid", message: "cd: OLDPWD not set" })
    }))

  it.effect("a relative target is from the working directory; an absolute one is itself", () =>
    Effect.sync(() => {
      expect(cd("cd sub")).toEqual({ _tag: "Dir", path: "/work/project/sub" })
      expect(cd("cd ..")).toEqual({ _tag: "Dir", path: "/work" })
      expect(cd("cd \"my dir\"")).toEqual({ _tag: "Dir", path: "/work/project/my dir" })
      expect(cd("cd /etc/")).toEqual({ _tag: "Dir", path: "/etc" })
    }))
})

describe("tildePath", () => {
  it.effect("home is ~, what is under it ~/…, anything else as it is", () =>
    Effect.sync(() => {
      expect(tildePath("/home/ann", "/home/ann")).toBe("~")
      expect(tildePath("/home/ann/src/app", "/home/ann")).toBe("~/src/app")
      expect(tildePath("/home/annex", "/home/ann")).toBe("/home/annex")
      expect(tildePath("/etc", "/home/ann")).toBe("/etc")
      expect(tildePath("/home/ann/src", "/home/ann/")).toBe("~/src")
    }))

  it.effect("with no home, an empty one or / as home, the directory is shown whole", () =>
    Effect.sync(() => {
      expect(tildePath("/home/ann", undefined)).toBe("/home/ann")
      expect(tildePath("/home/ann", "")).toBe("/home/ann")
      expect(tildePath("/", "/")).toBe("/")
      expect(tildePath("/usr/bin", "/")).toBe("/usr/bin")
    }))
})
