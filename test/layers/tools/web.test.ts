import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Buffer } from "node:buffer"
import { type Tool, ToolRegistryLive } from "easyai"
import { Parser } from "htmlparser2"
import { findAll, parseTree, textOf } from "../../../src/layers/tools/web/dom.js"
import { searchEngines } from "../../../src/layers/tools/web/engines.js"
import { htmlToText } from "../../../src/layers/tools/web/html.js"
import { parseMarkup } from "../../../src/layers/tools/web/markup.js"
import type { WebOptions } from "../../../src/layers/tools/web/options.js"
import { webTools } from "../../../src/layers/tools/web/webTools.js"
import { type Handler, type LoopbackServer, loopbackServer } from "../../support/loopbackServer.js"

// ---------------------------------------------------------------------------
// A real HTTP server on 127.0.0.1, one per test, closed with the test's scope.

type Route = Handler

/** A server answering `routes` by path (404 elsewhere); dies if 127.0.0.1 cannot be bound. */
const serve = (routes: Readonly<Record<string, Route>>) =>
  loopbackServer((req, res) => {
    const route = routes[new URL(req.url ?? "/", "http://127.0.0.1").pathname]
    if (route === undefined) res.writeHead(404, { "content-type": "text/plain" }).end("not found")
    else route(req, res)
  }).pipe(Effect.orDie)

const html = (body: string, status = 200): Route => (_req, res) => {
  res.writeHead(status, { "content-type": "text/html; charset=utf-8" }).end(body)
}

const redirect = (location: string, status = 302): Route => (_req, res) => {
  res.writeHead(status, { location }).end()
}

// ---------------------------------------------------------------------------
// Result pages in the structure of each engine's script-free HTML.

const googlePage = `<!doctype html><html><head><title>effect schema - Google Search</title>
<script>var big = "<a href='https://evil.example/'><h3>not a result</h3></a>";</script></head><body>
<div id="search"><div class="g"><div class="yuRUbf">
  <a href="/url?q=https://example.com/google-one&amp;sa=U&amp;ved=2ah"><h3 class="LC20lb">Google &amp; One</h3>
  <div><cite>example.com</cite></div></a></div>
  <div class="VwiC3b">First <em>google</em>
     snippet.</div></div>
<div class="g"><a href="https://example.org/two"><h3>Google Two</h3></a><div><span>2 days ago</span></div>
  <div class="IsZvec"><div class="VwiC3b">Second snippet</div></div></div>
<a href="/search?q=related+thing"><h3>Related searches</h3></a>
<a href="https://maps.google.com/maps?q=x"><h3>Maps</h3></a>
</div></body></html>`

const bravePage = `<html><body><main id="results">
<div class="snippet svelte-1x" data-type="web" data-pos="1">
  <a href="https://brave-one.example/" class="heading-serpresult svelte-1x">
    <div class="site-name-content">brave-one.example</div>
    <div class="title search-snippet-title svelte-1x">Brave One</div></a>
  <div class="generic-snippet svelte-1x"><div class="content">Brave snippet one.</div></div></div>
<div class="snippet fdb" data-type="web">
  <a href="/search?q=more">More like this</a>
  <a class="result-header" href="https://brave-two.example/page"><span class="snippet-title">Brave Two</span></a>
  <p class="snippet-description">Brave snippet two.</p></div>
</main></body></html>`

const ddgLitePage = `<html><body><table border="0">
<tr class="result-sponsored"><td>1.&nbsp;</td><td><a rel="nofollow" href="https://duckduckgo.com/y.js?ad=1" class='result-link'>Sponsored</a></td></tr>
<tr class="result-sponsored"><td>&nbsp;</td><td class='result-snippet'>Buy now.</td></tr>
<tr><td valign="top">1.&nbsp;</td><td>
  <a rel="nofollow" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Flite-one.example%2Fa%3Fb%3D1&amp;rut=abc" class='result-link'>Lite One</a></td></tr>
<tr><td>&nbsp;&nbsp;&nbsp;</td><td class='result-snippet'>Lite <b>snippet</b> one.</td></tr>
<tr><td>&nbsp;&nbsp;&nbsp;</td><td><span class='link-text'>lite-one.example</span></td></tr>
<tr><td valign="top">2.&nbsp;</td><td><a rel="nofollow" href="https://lite-two.example/" class='result-link'>Lite Two</a></td></tr>
<tr><td>&nbsp;&nbsp;&nbsp;</td><td class='result-snippet'>Lite snippet two.</td></tr>
</table></body></html>`

const bingTarget = "https://bing-one.example/path?x=1"
const bingPage = `<html><body><ol id="b_results">
<li class="b_ad"><h2><a href="https://ad.example/">An ad</a></h2></li>
<li class="b_algo"><div class="b_tpcn"><a class="tilk" href="https://bing-one.example/"><div>bing-one.example</div></a></div>
  <h2><a href="https://www.bing.com/ck/a?!&amp;&amp;p=abc&amp;u=a1${
  Buffer.from(bingTarget).toString("base64url")
}&amp;ntb=1">Bing One</a></h2>
  <div class="b_caption"><p class="b_lineclamp2"><span class="news_dt">Mar 3, 2024</span>&ensp;·&ensp;Bing snippet one.</p></div></li>
<li class="b_algo"><h2><a href="https://bing-two.example/">Bing Two</a></h2><p class="b_lineclamp3">Bing snippet two.</p></li>
</ol></body></html>`

const ddgPage = `<html><body><div id="links" class="results">
<div class="result results_links results_links_deep result--ad"><div class="links_main">
  <h2 class="result__title"><a class="result__a" href="https://duckduckgo.com/y.js?ad_provider=x">An ad</a></h2></div></div>
<div class="result results_links results_links_deep web-result"><div class="links_main links_deep result__body">
  <h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fddg-one.example%2F&amp;rut=x">DDG <b>One</b></a></h2>
  <div class="result__extras"><a class="result__url" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fddg-one.example%2F">ddg-one.example</a></div>
  <a class="result__snippet" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fddg-one.example%2F">DDG snippet one.</a></div></div>
</div></body></html>`

const emptyPage = `<html><body><p>No results found for your search.</p></body></html>`

const enginePaths = {
  google: "/google/search",
  brave: "/brave/search",
  "ddg-lite": "/ddg-lite/lite/",
  bing: "/bing/search",
  ddg: "/ddg/html/"
} as const

const baseUrlsOf = (base: string): NonNullable<WebOptions["baseUrls"]> => ({
  google: `${base}/google`,
  brave: `${base}/brave`,
  "ddg-lite": `${base}/ddg-lite/`,
  bing: `${base}/bing`,
  ddg: `${base}/ddg`
})

const hitsOn = (server: LoopbackServer, path: string): number =>
  server.hits.filter((hit) => new URL(hit, "http://x").pathname === path).length

// ---------------------------------------------------------------------------

/**
 * The tools on the test server: loopback is refused by default, so 127.0.0.1 is allowed explicitly.
 * No retries here (these tests run on the TestClock); "retries" below has the retrying fetcher.
 */
const toolsFor = (server: LoopbackServer, options: WebOptions = {}) =>
  webTools({
    baseUrls: baseUrlsOf(server.base),
    fetchTimeout: "5 seconds",
    fetchRetries: 0,
    allowNetworks: ["127.0.0.1/32"],
    ...options
  })

const call = (tools: ReadonlyArray<Tool.Tool>, name: string, args: unknown) => {
  const tool = tools.find((candidate) => candidate.spec.name === name)
  if (tool === undefined) throw new Error(`no tool ${name}`)
  return tool.invoke(JSON.stringify(args))
}

// Real sockets and real timeouts: the live clock, not TestClock.
layer(Layer.empty, { excludeTestServices: true })("web tools over their own undici agent", (it) => {
  describe("search", () => {
    it.scoped("reads Google's result page", () =>
      Effect.gen(function*() {
        const server = yield* serve({ [enginePaths.google]: html(googlePage) })
        const result = yield* call(yield* toolsFor(server), "web_search", { query: "effect schema", engine: "google" })
        expect(result.isError).toBe(false)
        expect(result.content).toBe([
          `2 results for "effect schema" from google:`,
          "",
          "1. Google & One",
          "   https://example.com/google-one",
          "   First google snippet.",
          "",
          "2. Google Two",
          "   https://example.org/two",
          "   Second snippet",
          "",
          `Snippets are short and may be stale: read the relevant pages with web_fetch({"url":"https://example.com/google-one"}) before answering, and end your reply with a "Sources:" list of the URLs you used.`
        ].join("\n"))
        expect(server.hits).toEqual(["/google/search?q=effect+schema&hl=en&ie=UTF-8"])
      }))

    it.scoped("reads Brave's result page", () =>
      Effect.gen(function*() {
        const server = yield* serve({ [enginePaths.brave]: html(bravePage) })
        const result = yield* call(yield* toolsFor(server), "web_search", { query: "q", engine: "brave" })
        expect(result.content).toContain(
          `1. Brave One\n   https://brave-one.example/\n   Brave snippet one.\n\n2. Brave Two\n   https://brave-two.example/page\n   Brave snippet two.`
        )
      }))

    it.scoped("reads DuckDuckGo lite's table, unwrapping links and skipping sponsored rows", () =>
      Effect.gen(function*() {
        const server = yield* serve({ [enginePaths["ddg-lite"]]: html(ddgLitePage) })
        const result = yield* call(yield* toolsFor(server), "web_search", { query: "q", engine: "ddg-lite" })
        expect(result.content).toContain(`2 results for "q" from ddg-lite:`)
        expect(result.content).toContain(
          `1. Lite One\n   https://lite-one.example/a?b=1\n   Lite snippet one.\n\n2. Lite Two\n   https://lite-two.example/\n   Lite snippet two.`
        )
        expect(result.content).not.toContain("Sponsored")
        expect(server.hits).toEqual(["/ddg-lite/lite/?q=q"])
      }))

    it.scoped("reads Bing's result page, decoding click-tracking links", () =>
      Effect.gen(function*() {
        const server = yield* serve({ [enginePaths.bing]: html(bingPage) })
        const result = yield* call(yield* toolsFor(server), "web_search", { query: "q", engine: "bing" })
        expect(result.content).toContain(
          `1. Bing One\n   ${bingTarget}\n   Mar 3, 2024 · Bing snippet one.\n\n2. Bing Two\n   https://bing-two.example/\n   Bing snippet two.`
        )
        expect(result.content).not.toContain("An ad")
      }))

    it.scoped("reads DuckDuckGo html's result page, skipping ads", () =>
      Effect.gen(function*() {
        const server = yield* serve({ [enginePaths.ddg]: html(ddgPage) })
        const result = yield* call(yield* toolsFor(server), "web_search", { query: "q", engine: "ddg" })
        expect(result.content).toContain(`1 result for "q" from ddg:\n\n1. DDG One\n   https://ddg-one.example/\n   DDG snippet one.`)
      }))

    it.scoped("auto cascades past an engine that fails and one that finds nothing", () =>
      Effect.gen(function*() {
        const server = yield* serve({
          [enginePaths.google]: html("<h1>oops</h1>", 500),
          [enginePaths.brave]: html(emptyPage),
          [enginePaths["ddg-lite"]]: html(ddgLitePage),
          [enginePaths.bing]: html(bingPage),
          [enginePaths.ddg]: html(ddgPage)
        })
        const result = yield* call(yield* toolsFor(server), "web_search", { query: "cascade", max_results: 1 })
        expect(result.isError).toBe(false)
        expect(result.content).toContain(`1 result for "cascade" from ddg-lite:\n\n1. Lite One`)
        expect(result.content).not.toContain("Lite Two")
        expect(result.content).toContain(`Tried first: google (${server.base}/google/search?q=cascade&hl=en&ie=UTF-8 answered HTTP 500); brave (no results could be read from brave's page`)
        expect([enginePaths.google, enginePaths.brave, enginePaths["ddg-lite"], enginePaths.bing, enginePaths.ddg].map((path) => hitsOn(server, path)))
          .toEqual([1, 1, 1, 0, 0])
      }))

    it.scoped("a named engine uses only that engine", () =>
      Effect.gen(function*() {
        const server = yield* serve({
          [enginePaths.google]: html(googlePage),
          [enginePaths.bing]: html("busy", 503)
        })
        const result = yield* call(yield* toolsFor(server), "web_search", { query: "only bing", engine: "bing" })
        expect(result.isError).toBe(true)
        expect(result.content).toBe(
          `web_search: no search engine returned results for "only bing" (bing: ${server.base}/bing/search?q=only%20bing&setlang=en answered HTTP 503). Try web_search({"query":"only bing","engine":"auto"}) to let other engines answer.`
        )
        expect(hitsOn(server, enginePaths.google)).toBe(0)
      }))

    it.scoped("says what every engine answered when none has results", () =>
      Effect.gen(function*() {
        const server = yield* serve({ [enginePaths.brave]: html(emptyPage) })
        const result = yield* call(yield* toolsFor(server, { engines: ["google", "brave"] }), "web_search", { query: "x" })
        expect(result.isError).toBe(true)
        expect(result.content).toContain(`web_search: no search engine returned results for "x" (google: ${server.base}/google/search?q=x&hl=en&ie=UTF-8 answered HTTP 404; brave: no results could be read`)
        expect(result.content).toContain("Try fewer or different words.")
        expect(server.hits).toHaveLength(2)
      }))

    it.scoped("the engines option sets the cascade and the engines the model may name", () =>
      Effect.gen(function*() {
        const server = yield* serve({ [enginePaths.bing]: html(bingPage), [enginePaths.ddg]: html(ddgPage) })
        const tools = yield* toolsFor(server, { engines: ["ddg", "bing"] })
        const result = yield* call(tools, "web_search", { query: "x", max_results: 99 })
        expect(result.isError).toBe(false)
        expect(result.content).toContain(`1 result for "x" from ddg:`)
        expect(server.hits).toEqual(["/ddg/html/?q=x"])
        const rejected = yield* call(tools, "web_search", { query: "x", engine: "google" })
        expect(rejected.isError).toBe(true)
        expect(rejected.content).toContain(`engine: expected one of "auto" | "ddg" | "bing", got "google"`)
        expect(tools[0]?.spec.description).toContain(`"auto" (default) tries ddg → bing in turn`)
      }))

    it.scoped("refuses an empty query with an example", () =>
      Effect.gen(function*() {
        const server = yield* serve({})
        const result = yield* call(yield* toolsFor(server), "web_search", { query: "   " })
        expect(result).toMatchObject({ isError: true })
        expect(result.content).toContain(`query is empty. Example: web_search({"query":"effect-ts schema tutorial"})`)
        expect(server.hits).toEqual([])
      }))
  })

  describe("fetch", () => {
    const article = `<!DOCTYPE html><html><head><title>  The   Article </title>
<style>body { color: red } .secret { display: none }</style>
<script>document.write("SCRIPT TEXT")</script></head>
<body><nav><a href="/home">Home</a></nav>
<h1>Main   heading</h1>
<p>First paragraph with <b>bold</b> and
   <a href="/more">a link</a>.</p>
<noscript>Enable JavaScript NOSCRIPT</noscript>
<template><p>TEMPLATE TEXT</p></template>
<svg><text>SVG TEXT</text></svg>
<h2>Section</h2>
<ul><li>one</li><li>two<ol><li>nested a</li><li>nested b</li></ol></li></ul>
<table><tr><th>Name</th><th>Value</th></tr><tr><td>x</td><td>1</td></tr></table>
<pre>line 1
  indented line 2</pre>
<p>Caf&eacute; &amp; cr&egrave;me<br>next line</p>
</body></html>`

    it.scoped("returns the title and readable text, without scripts and styles", () =>
      Effect.gen(function*() {
        const server = yield* serve({ "/article": html(article) })
        const result = yield* call(yield* toolsFor(server), "web_fetch", { url: `${server.base}/article` })
        expect(result.isError).toBe(false)
        expect(result.content).toBe([
          `URL: ${server.base}/article`,
          "Title: The Article",
          "Content-Type: text/html",
          "",
          [
            "Home",
            "",
            "# Main heading",
            "",
            "First paragraph with bold and a link.",
            "",
            "## Section",
            "",
            "- one",
            "- two",
            "  1. nested a",
            "  2. nested b",
            "",
            "Name | Value",
            "x | 1",
            "",
            "line 1",
            "  indented line 2",
            "",
            "Café & crème",
            "next line"
          ].join("\n")
        ].join("\n"))
        for (const hidden of ["SCRIPT TEXT", "color: red", "NOSCRIPT", "TEMPLATE TEXT", "SVG TEXT"]) {
          expect(result.content).not.toContain(hidden)
        }
      }))

    it.scoped("follows a redirect chain within the cap", () =>
      Effect.gen(function*() {
        const server = yield* serve({
          "/r3": redirect("/r2", 301),
          "/r2": redirect("r1", 307),
          "/r1": (_req, res) => redirect(`http://${_req.headers.host}/final`, 303)(_req, res),
          "/final": html("<title>Final</title><p>arrived</p>")
        })
        const result = yield* call(yield* toolsFor(server, { maxRedirects: 3 }), "web_fetch", { url: `${server.base}/r3` })
        expect(result.isError).toBe(false)
        expect(result.content).toContain(
          `URL: ${server.base}/final\nRedirected from: ${server.base}/r3 -> ${server.base}/r2 -> ${server.base}/r1\nTitle: Final`
        )
        expect(result.content).toContain("arrived")
      }))

    it.scoped("stops a redirect chain beyond the cap, and a redirect to another scheme", () =>
      Effect.gen(function*() {
        const server = yield* serve({
          "/loop": redirect("/loop"),
          "/r2": redirect("/r1"),
          "/r1": redirect("/r0"),
          "/r0": html("<p>end</p>"),
          "/ftp": redirect("ftp://files.example/x")
        })
        const tools = yield* toolsFor(server, { maxRedirects: 1 })
        const beyond = yield* call(tools, "web_fetch", { url: `${server.base}/r2` })
        expect(beyond).toMatchObject({ isError: true })
        expect(beyond.content).toBe(`web_fetch: stopped after 1 redirects (started at ${server.base}/r2, last at ${server.base}/r1)`)
        const loop = yield* call(tools, "web_fetch", { url: `${server.base}/loop` })
        expect(loop.content).toContain("stopped after 1 redirects")
        expect(hitsOn(server, "/loop")).toBe(2)
        const ftp = yield* call(tools, "web_fetch", { url: `${server.base}/ftp` })
        expect(ftp.content).toBe(`web_fetch: ${server.base}/ftp redirected to ftp: URL, which is not fetched (only http and https)`)
      }))

    it.scoped("stops reading at the byte cap, says so, and closes the connection", () =>
      Effect.gen(function*() {
        const total = 64 * 1024 * 1024
        const chunk = Buffer.from(`<p>${"abcdefgh ".repeat(7280)}</p>\n`)
        let sent = 0
        let finished = false
        let signalClosed: () => void = () => {}
        const closed = new Promise<boolean>((resolve) => {
          signalClosed = () => resolve(!finished)
        })
        const server = yield* serve({
          "/huge": (_req, res) => {
            res.writeHead(200, { "content-type": "text/html" })
            res.on("close", () => signalClosed())
            const pump = (): void => {
              while (sent < total) {
                sent += chunk.length
                if (!res.write(chunk)) {
                  res.once("drain", pump)
                  return
                }
              }
              finished = true
              res.end()
            }
            pump()
          }
        })
        const result = yield* call(yield* toolsFor(server, { maxBytes: 100_000, maxChars: 100_000 }), "web_fetch", {
          url: `${server.base}/huge`,
          max_chars: 100_000
        })
        expect(result.isError).toBe(false)
        expect(result.content).toContain(
          "[truncated: the page is larger than 100000 bytes; only the first 100000 bytes were read]"
        )
        expect(result.content.length).toBeLessThan(100_400)
        const closedEarly = yield* Effect.promise(() => closed).pipe(Effect.timeout("5 seconds"))
        expect(closedEarly).toBe(true)
        expect(sent).toBeLessThan(total)
      }))

    it.scoped("cuts long text at max_chars with a note", () =>
      Effect.gen(function*() {
        const paragraphs = Array.from({ length: 200 }, (_, i) => `<p>paragraph ${i} ${"word ".repeat(20)}</p>`).join("")
        const server = yield* serve({ "/long": html(paragraphs) })
        const result = yield* call(yield* toolsFor(server), "web_fetch", { url: `${server.base}/long`, max_chars: 1000 })
        expect(result.content).toContain("paragraph 0 word")
        expect(result.content).not.toContain("paragraph 20 ")
        expect(result.content).toMatch(/\[cut: showing the first \d+ of \d+ characters; ask for more with max_chars \(up to 100000\)\]$/)
      }))

    it.scoped("gives up on a slow server at the timeout", () =>
      Effect.gen(function*() {
        const server = yield* serve({
          "/slow": (_req, res) => {
            res.writeHead(200, { "content-type": "text/html" })
            res.write("<p>start") // then nothing more
          },
          "/silent": () => {}
        })
        const tools = yield* toolsFor(server, { fetchTimeout: "300 millis" })
        const started = Date.now()
        const silent = yield* call(tools, "web_fetch", { url: `${server.base}/silent` })
        const slow = yield* call(tools, "web_fetch", { url: `${server.base}/slow` })
        expect(Date.now() - started).toBeLessThan(4000)
        expect(silent).toMatchObject({ isError: true, content: `web_fetch: ${server.base}/silent did not answer within 300ms` })
        expect(slow.content).toBe(`web_fetch: ${server.base}/slow did not answer within 300ms`)
      }))

    it.scoped("passes text through and refuses binary content", () =>
      Effect.gen(function*() {
        const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52])
        const server = yield* serve({
          "/notes.txt": (_req, res) => {
            res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end("line <b>1</b>\r\n  line 2\n")
          },
          "/data.json": (_req, res) => {
            res.writeHead(200, { "content-type": "application/json" }).end(`{"a": [1, 2]}`)
          },
          "/image.png": (_req, res) => {
            res.writeHead(200, { "content-type": "image/png" }).end(png)
          },
          "/blob": (_req, res) => {
            res.writeHead(200, { "content-type": "application/octet-stream" }).end(png)
          },
          "/untyped": (_req, res) => {
            res.end("<!doctype html><html><title>Sniffed</title><p>as html</p></html>")
          },
          "/latin1": (_req, res) => {
            res.writeHead(200, { "content-type": "text/plain; charset=iso-8859-1" }).end(Buffer.from([0x63, 0x61, 0x66, 0xe9]))
          }
        })
        const tools = yield* toolsFor(server)
        const text = yield* call(tools, "web_fetch", { url: `${server.base}/notes.txt` })
        expect(text.content).toBe(`URL: ${server.base}/notes.txt\nContent-Type: text/plain\n\nline <b>1</b>\n  line 2`)
        const json = yield* call(tools, "web_fetch", { url: `${server.base}/data.json` })
        expect(json.content).toContain(`Content-Type: application/json\n\n{"a": [1, 2]}`)
        const image = yield* call(tools, "web_fetch", { url: `${server.base}/image.png` })
        expect(image).toMatchObject({
          isError: true,
          content: `web_fetch: ${server.base}/image.png is image/png, which is binary: only HTML and text content can be read`
        })
        const blob = yield* call(tools, "web_fetch", { url: `${server.base}/blob` })
        expect(blob.content).toBe(
          `web_fetch: ${server.base}/blob has content type application/octet-stream and its bytes are binary: only HTML and text content can be read`
        )
        const untyped = yield* call(tools, "web_fetch", { url: `${server.base}/untyped` })
        expect(untyped.content).toContain("Title: Sniffed")
        expect(untyped.content).toContain("\n\nas html")
        const latin1 = yield* call(tools, "web_fetch", { url: `${server.base}/latin1` })
        expect(latin1.content.endsWith("\n\ncafé")).toBe(true)
      }))

    it.scoped("survives hostile HTML: unclosed tags, a 5 MB inline script, 10 000-deep nesting", () =>
      Effect.gen(function*() {
        const unclosed = `<html><head><title>Unclosed</title><body><div><p>alpha <b>bold <i>italic <a href="/x">link
<table><tr><td>cell<td>cell 2<ul><li>item<li>item 2<div><span>`
        const script = `<title>Scripted</title><p>before</p><script>${"var x = '</scr' + 'ipt>'; SECRET ".repeat(160_000)}</script><p>after</p>`
        const deep = `<title>Deep</title>${"<div><span>".repeat(10_000)}deep text${"</span></div>".repeat(10_000)}<p>tail</p>`
        const deepUnclosed = `${"<div>".repeat(10_000)}bottom${"<section><em>".repeat(5_000)}`
        const server = yield* serve({
          "/unclosed": html(unclosed),
          "/script": html(script),
          "/deep": html(deep),
          "/deep-unclosed": html(deepUnclosed)
        })
        expect(script.length).toBeGreaterThan(5_000_000)
        const tools = yield* toolsFor(server, { maxBytes: 8 * 1024 * 1024 })
        const a = yield* call(tools, "web_fetch", { url: `${server.base}/unclosed` })
        expect(a.isError).toBe(false)
        expect(a.content).toContain("alpha bold italic link")
        expect(a.content).toContain("cell | cell 2")
        const b = yield* call(tools, "web_fetch", { url: `${server.base}/script` })
        expect(b.content).toContain("Title: Scripted")
        expect(b.content).toContain("before\n\nafter")
        expect(b.content).not.toContain("SECRET")
        const c = yield* call(tools, "web_fetch", { url: `${server.base}/deep` })
        expect(c.content).toContain("Title: Deep")
        expect(c.content).toContain("deep text\n\ntail")
        const d = yield* call(tools, "web_fetch", { url: `${server.base}/deep-unclosed` })
        expect(d.content.endsWith("\n\nbottom")).toBe(true)
      }))

    it.scoped("reports HTTP errors, unreachable hosts and URLs it will not fetch", () =>
      Effect.gen(function*() {
        const server = yield* serve({})
        const tools = yield* toolsFor(server)
        const missing = yield* call(tools, "web_fetch", { url: `${server.base}/nope` })
        expect(missing).toMatchObject({ isError: true, content: `web_fetch: ${server.base}/nope answered HTTP 404` })
        const file = yield* call(tools, "web_fetch", { url: "file:///etc/passwd" })
        expect(file.content).toBe(`web_fetch: only http:// and https:// URLs can be fetched, not file: ("file:///etc/passwd")`)
        const script = yield* call(tools, "web_fetch", { url: "javascript:alert(1)" })
        expect(script.content).toContain("only http:// and https:// URLs can be fetched, not javascript:")
        const refused = yield* call(tools, "web_fetch", { url: "http://127.0.0.1:1/" })
        expect(refused.isError).toBe(true)
        expect(refused.content).toContain("web_fetch: could not fetch http://127.0.0.1:1/:")
        expect(refused.content).toContain("ECONNREFUSED")
      }))
  })

  describe("redirects and caps together", () => {
    it.scoped("follows redirects by hand and caps the body", () =>
      Effect.gen(function*() {
        const server = yield* serve({
          "/a": redirect("/b"),
          "/b": redirect("/c"),
          "/c": html(`<title>C</title><p>${"x".repeat(50_000)}</p>`)
        })
        const ok = yield* call(yield* toolsFor(server, { maxBytes: 1000 }), "web_fetch", { url: `${server.base}/a` })
        expect(ok.content).toContain(`URL: ${server.base}/c\nRedirected from: ${server.base}/a -> ${server.base}/b\nTitle: C`)
        expect(ok.content).toContain("[truncated: the page is larger than 1000 bytes")
        const capped = yield* call(yield* toolsFor(server, { maxRedirects: 1 }), "web_fetch", { url: `${server.base}/a` })
        expect(capped.content).toContain("stopped after 1 redirects")
      }))
  })

  describe("the unified web tool", () => {
    it.scoped("infers the action: a url fetches, a query searches", () =>
      Effect.gen(function*() {
        const server = yield* serve({ "/page": html("<title>Page</title><p>hello</p>"), [enginePaths.ddg]: html(ddgPage) })
        const tools = yield* toolsFor(server)
        const fetched = yield* call(tools, "web", { url: `${server.base}/page` })
        expect(fetched.content).toContain("Title: Page")
        const searched = yield* call(tools, "web", { query: "q", engine: "ddg" })
        expect(searched.content).toContain(`from ddg:`)
        expect(searched.content).toContain(`web({"action":"fetch","url":"https://ddg-one.example/"})`)
        const explicit = yield* call(tools, "web", { action: "fetch", url: `${server.base}/page`, max_chars: 500 })
        expect(explicit.content).toContain("hello")
      }))

    it.scoped("teaches the parameter an action needs", () =>
      Effect.gen(function*() {
        const server = yield* serve({})
        const tools = yield* toolsFor(server)
        const noQuery = yield* call(tools, "web", { action: "search", url: "https://example.com" })
        expect(noQuery).toMatchObject({
          isError: true,
          content: `web: action="search" needs query. Example: web({"action":"search","query":"node 22 release date"})`
        })
        const noUrl = yield* call(tools, "web", { action: "fetch" })
        expect(noUrl.content).toBe(`web: action="fetch" needs url. Example: web({"action":"fetch","url":"https://example.com/page"})`)
        const neither = yield* call(tools, "web", {})
        expect(neither.content).toContain("web: invalid arguments: action: is missing")
      }))

    it.scoped("ships both surfaces with the Sources rule and the memory-first workflow", () =>
      Effect.gen(function*() {
        const server = yield* serve({})
        const tools = yield* toolsFor(server)
        expect(tools.map((tool) => [tool.spec.name, tool.surface])).toEqual([
          ["web_search", "split"],
          ["web_fetch", "split"],
          ["web", "unified"]
        ])
        for (const tool of tools) {
          expect(tool.spec.description).toContain(`Sources: your reply MUST end with a "Sources:" list`)
          expect(tool.spec.description).toContain("knowledge_search")
          expect(tool.spec.shortDescription).toContain("`Sources:`")
        }
        expect(tools[2]?.spec.description).toContain(`action="search"`)
        expect(tools[2]?.spec.description).toContain(`action="fetch"`)
        expect(tools[1]?.spec.description).toContain("up to 5 redirects are followed; at most 2 MiB of a page are read")
      }))

    it.scoped("the registry's tool mode picks the surface", () =>
      Effect.gen(function*() {
        const server = yield* serve({})
        const tools = yield* toolsFor(server)
        const names = (mode: "split" | "unified" | "both") =>
          Effect.flatMap(ToolRegistryLive.make({ mode, tools }), (registry) => registry.specs).pipe(
            Effect.map((specs) => specs.map((spec) => spec.name))
          )
        expect(yield* names("split")).toEqual(["web_search", "web_fetch"])
        expect(yield* names("unified")).toEqual(["web"])
        expect(yield* names("both")).toEqual(["web_search", "web_fetch", "web"])
      }))
  })
})

describe("HTML handling", () => {
  it("converts 100 000-deep nesting without recursion", () => {
    const depth = 100_000
    const page = htmlToText(`${"<div><b>".repeat(depth)}core${"</b></div>".repeat(depth)}`, "https://x.example/")
    expect(page.text).toBe("core")
    const tree = parseTree(`${"<div class='result'>".repeat(depth)}<a class="result__a" href="https://deep.example/">Deep</a>`)
    const links = findAll(tree, (el) => el.name === "a")
    expect(links).toHaveLength(1)
    expect(links.map((link) => textOf(link))).toEqual(["Deep"])
  })

  it("collects the title and the page's links, resolved and without duplicates", () => {
    const page = htmlToText(
      `<head><base href="https://docs.example/v2/"></head><title>Docs &amp; more</title>
       <a href="intro">Intro</a> <a href="intro#part">Intro again</a> <a href="mailto:x@y">Mail</a>
       <a href="https://other.example/">  Other
       site </a>`,
      "https://x.example/start"
    )
    expect(page.title).toBe("Docs & more")
    expect(page.links).toEqual([
      { text: "Intro", url: "https://docs.example/v2/intro" },
      { text: "Other site", url: "https://other.example/" }
    ])
  })

  it("reads a result page with a huge inline script in linear time", () => {
    const page = `<script>${"<div class='result'><a class='result__a' href='https://no.example/'>no</a></div>".repeat(60_000)}</script>${ddgPage}`
    const tree = parseTree(page)
    expect(findAll(tree, (el) => el.name === "a").map((el) => textOf(el))).toEqual(["An ad", "DDG One", "ddg-one.example", "DDG snippet one."])
  })

  it("builds the same element structure as htmlparser2's Parser, in linear time", () => {
    const events = (run: (open: (name: string, attribs: Readonly<Record<string, string>>) => void, text: (t: string) => void, close: (name: string) => void) => void) => {
      const out: Array<string> = []
      run(
        (name, attribs) => out.push(`<${name.toLowerCase()} ${JSON.stringify(attribs)}>`),
        (text) => {
          const last = out.length - 1
          if (last >= 0 && out[last]?.startsWith("#")) out[last] += text
          else out.push(`#${text}`)
        },
        (name) => out.push(`</${name.toLowerCase()}>`)
      )
      return out
    }
    const samples = [
      "<p>one<p>two<div>three</p>four",
      "<ul><li>a<li>b</ul></li>",
      "<table><tr><td>1<td>2<tr><td>3</table>",
      "<form><form><input name=a></form></form>",
      "<b><i>x</b>y</i>",
      "</p></br><br/>",
      `<svg><path d="M0"/><circle/></svg><div/>after`,
      `<script>if (a < b) { "</div>" }</script><style>p>a{}</style>`,
      "<title>a &amp; b</title><textarea><b>raw</textarea>",
      `<a href="x&amp;y" HREF="z">A<a>B</a>`,
      "<!doctype html><!-- c --><![CDATA[x]]><?php ?>",
      "<math><mi>x</mi><![CDATA[y]]></math>",
      "<h1>a<h2>b</h1>c",
      "<select><option>1<option>2</select>",
      "<dl><dt>a<dd>b<dt>c</dl>",
      "text &lt;&gt; &#x41; &unknown; &amp",
      "<div><span><em>unclosed",
      "<IMAGE src=x><Div CLASS='A b'>x</DIV>"
    ]
    for (const sample of samples) {
      const ours = events((open, text, close) => parseMarkup(sample, { onopentag: open, ontext: text, onclosetag: close }))
      const theirs = events((open, text, close) => {
        const parser = new Parser({ onopentag: open, ontext: text, onclosetag: close })
        parser.write(sample)
        parser.end()
      })
      expect(ours, sample).toEqual(theirs)
    }
    let closes = 0
    parseMarkup(`${"<b><p>".repeat(200_000)}${"</i>".repeat(200_000)}`, {
      onopentag: () => {},
      ontext: () => {},
      onclosetag: () => closes++
    })
    expect(closes).toBe(400_000)
  })

  it("reads hostile result pages without blowing up, for every engine", () => {
    const depth = 50_000
    const level = `<div class="result b_algo g snippet fdb" data-type="web"><a class="result__a result-link" href="https://deep.example/">`
    const hostile = `${level.repeat(depth)}<h2><h3>Deep</h3></h2>${"</a></div>".repeat(depth)}<script>${"<div class='result'>".repeat(100_000)}</script>`
    for (const engine of Object.values(searchEngines)) {
      const results = engine.extract(hostile, "https://engine.example/search?q=x")
      expect(results.length, engine.name).toBeLessThanOrEqual(30)
    }
  })
})

describe("web_fetch retries", () => {
  it.live("asks again after 5xx answers and refused connections, before any of a body is read", () =>
    Effect.scoped(Effect.gen(function*() {
      let calls = 0
      const server = yield* serve({
        "/flaky": (_req, res) => {
          calls += 1
          if (calls <= 2) res.writeHead(503, { "content-type": "text/plain" }).end("busy")
          else html("<title>Back</title><p>up again</p>")(_req, res)
        }
      })
      const tools = yield* webTools({ allowNetworks: ["127.0.0.1/32"], fetchTimeout: "20 seconds" })
      const page = yield* call(tools, "web_fetch", { url: `${server.base}/flaky` })
      expect(page.isError).toBe(false)
      expect(page.content).toContain("up again")
      expect(hitsOn(server, "/flaky")).toBe(3)

      // Nothing listens on port 1: every attempt is refused, then the last failure is reported.
      const few = yield* webTools({ allowNetworks: ["127.0.0.1/32"], fetchRetries: 2 })
      const started = Date.now()
      const refused = yield* call(few, "web_fetch", { url: "http://127.0.0.1:1/" })
      expect(refused.content).toContain("ECONNREFUSED")
      // Two retries wait 250 ms and 500 ms.
      expect(Date.now() - started).toBeGreaterThanOrEqual(700)
    })), { timeout: 30_000 })

  it.live("does not ask again once a body started, nor after a 4xx, nor a search engine that failed", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* serve({
        "/cut": (_req, res) => {
          res.writeHead(200, { "content-type": "text/html", "content-length": "100000" })
          res.write("<p>partial")
          setTimeout(() => res.destroy(), 20)
        },
        "/gone": html("gone", 410),
        [enginePaths.bing]: html("busy", 503)
      })
      const tools = yield* webTools({ baseUrls: baseUrlsOf(server.base), allowNetworks: ["127.0.0.1/32"] })
      const cut = yield* call(tools, "web_fetch", { url: `${server.base}/cut` })
      expect(cut.isError).toBe(true)
      expect(hitsOn(server, "/cut")).toBe(1)
      yield* call(tools, "web_fetch", { url: `${server.base}/gone` })
      expect(hitsOn(server, "/gone")).toBe(1)
      yield* call(tools, "web_search", { query: "busy", engine: "bing" })
      expect(hitsOn(server, enginePaths.bing)).toBe(1)
    })), { timeout: 30_000 })
})
