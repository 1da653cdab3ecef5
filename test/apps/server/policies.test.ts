/**
 * The rules behind the `Host` check and the CORS policy, as pure
 * functions: what an operator may write, and which headers they admit.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { hostAdmitter, parseAllowedHosts } from "../../../src/apps/server/hostPolicy.js"
import { admits, isSameOrigin, parseCorsPolicy } from "../../../src/apps/server/originPolicy.js"

describe("the Host rule", () => {
  it("on loopback: the loopback names, with no port or the server's", () => {
    const admitted = hostAdmitter({ address: "127.0.0.1", port: 8080 })
    for (const host of ["127.0.0.1:8080", "localhost", "LocalHost:8080", "[::1]:8080", "127.0.0.1"]) expect(admitted(host), host).toBe(true)
    for (const host of [undefined, "", "127.0.0.1:8081", "evil.example:8080", "10.0.0.1:8080", "a@127.0.0.1:8080", "127.0.0.1:8080/x"]) {
      expect(admitted(host), String(host)).toBe(false)
    }
  })

  it("on a wildcard address: any IP literal and localhost, still no foreign name", () => {
    const admitted = hostAdmitter({ address: "0.0.0.0", port: 8080 })
    for (const host of ["192.168.1.20:8080", "[fe80::1]:8080", "10.1.2.3", "localhost:8080"]) expect(admitted(host), host).toBe(true)
    for (const host of ["evil.example:8080", "192.168.1.20:9"]) expect(admitted(host), host).toBe(false)
  })

  it("on a LAN address: that address only; loopback names are not this socket", () => {
    const admitted = hostAdmitter({ address: "192.168.1.20", port: 80 })
    expect(admitted("192.168.1.20")).toBe(true)
    expect(admitted("localhost")).toBe(false)
  })

  it("operator names: a bare name with any port, name:port with that port, * for any", () => {
    const admitted = hostAdmitter({ address: "127.0.0.1", port: 8080, allowedHosts: ["ai.example.com", "proxy.example:8443"] })
    expect(admitted("ai.example.com")).toBe(true)
    expect(admitted("AI.example.com:443")).toBe(true)
    expect(admitted("proxy.example:8443")).toBe(true)
    expect(admitted("proxy.example")).toBe(false)
    expect(hostAdmitter({ address: "127.0.0.1", port: 8080, allowedHosts: ["*"] })("anything.example")).toBe(true)
  })

  it("asked again, or after a flood of distinct names, gives the same verdicts", () => {
    const admitted = hostAdmitter({ address: "127.0.0.1", port: 8080 })
    const verdicts = (hosts: ReadonlyArray<string>) => hosts.map((host) => admitted(host))
    const sample = ["127.0.0.1:8080", "evil.example:8080", "localhost", "127.0.0.1:8081"]
    const first = verdicts(sample)
    expect(first).toEqual([true, false, true, false])
    expect(verdicts(sample)).toEqual(first)
    // More distinct names than the server remembers: each is still judged, and the first ones keep their verdicts.
    const flood = Array.from({ length: 500 }, (_, i) => `host-${i}.example:8080`)
    expect(verdicts(flood).every((verdict) => !verdict)).toBe(true)
    expect(verdicts(["localhost:8080", "[::1]", "other.example"])).toEqual([true, true, false])
    expect(verdicts(sample)).toEqual(first)
  })

  it("--allowed-hosts refuses what is not a host", () => {
    expect(parseAllowedHosts("ai.example.com, proxy.example:8443")).toEqual(Either.right(["ai.example.com", "proxy.example:8443"]))
    expect(Either.isLeft(parseAllowedHosts("https://ai.example.com"))).toBe(true)
    expect(Either.isLeft(parseAllowedHosts("a b"))).toBe(true)
  })
})

describe("the CORS policy", () => {
  it("reads none, the keywords and origins; refuses what is not an origin", () => {
    expect(parseCorsPolicy("")).toEqual(Either.right([]))
    expect(parseCorsPolicy("none")).toEqual(Either.right([]))
    expect(parseCorsPolicy(" * ")).toEqual(Either.right("*"))
    expect(parseCorsPolicy("localhost")).toEqual(Either.right("localhost"))
    expect(parseCorsPolicy("https://A.example:443/, http://b.example:8080")).toEqual(Either.right(["https://a.example", "http://b.example:8080"]))
    for (const bad of ["https://a.example/path", "a.example", "*,https://a.example", "localhost,https://a.example"]) {
      expect(Either.isLeft(parseCorsPolicy(bad)), bad).toBe(true)
    }
  })

  it("admits by policy, and knows the server's own page", () => {
    expect(admits([], "https://a.example")).toBe(false)
    expect(admits(["https://a.example"], "https://a.example")).toBe(true)
    expect(admits("localhost", "http://localhost:5173")).toBe(true)
    expect(admits("localhost", "http://localhost.evil.example")).toBe(false)
    expect(isSameOrigin("http://127.0.0.1:8080", "127.0.0.1:8080")).toBe(true)
    expect(isSameOrigin("http://127.0.0.1:8080", "127.0.0.1:8081")).toBe(false)
    expect(isSameOrigin("null", "127.0.0.1:8080")).toBe(false)
    expect(isSameOrigin("http://127.0.0.1:8080", undefined)).toBe(false)
  })
})
