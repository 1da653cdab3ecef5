/**
 * Bing (`www.bing.com/search`): results are `li.b_algo` items of
 * `ol#b_results`, each with an `h2 > a` title link and a snippet in
 * `.b_caption p` (or a `p.b_lineclamp…`). Links may be click-tracked as
 * `/ck/a?…&u=a1<base64url of the target>`.
 *
 * @module
 */
import { Buffer } from "node:buffer"
import { classes, type Element, findAll, findFirst, hasClass, parseTree, textOf } from "../dom.js"
import { absoluteHttp, containerBudget, joinBase, maxCandidates, ResultList, type SearchEngine } from "../engine.js"

/** The target of a Bing click-tracking link (`/ck/a?…&u=a1…`), or the link itself. */
export const unwrapBing = (href: string | undefined, pageUrl: string): URL | undefined => {
  const url = absoluteHttp(href, pageUrl)
  if (url === undefined || !url.pathname.startsWith("/ck/")) return url
  const wrapped = url.searchParams.get("u")
  if (wrapped === null || !wrapped.startsWith("a1")) return url
  return absoluteHttp(Buffer.from(wrapped.slice(2), "base64url").toString("utf8"), pageUrl) ?? url
}

const snippetOf = (item: Element): string => {
  const caption = findFirst(item, (el) => hasClass(el, "b_caption"), containerBudget)
  const paragraph = caption === undefined ? undefined : findFirst(caption, (el) => el.name === "p", containerBudget)
  const clamp = findFirst(item, (el) => classes(el).some((name) => name.startsWith("b_lineclamp")), containerBudget)
  const element = paragraph ?? clamp ?? caption ?? findFirst(item, (el) => el.name === "p", containerBudget)
  return element === undefined ? "" : textOf(element, 300)
}

/** `bing`: www.bing.com. */
export const bing: SearchEngine = {
  name: "bing",
  defaultBaseUrl: "https://www.bing.com",
  searchUrl: (base, query) => joinBase(base, `/search?q=${encodeURIComponent(query)}&setlang=en`),
  extract: (html, pageUrl) => {
    const list = new ResultList()
    for (const item of findAll(parseTree(html), (el) => hasClass(el, "b_algo"), maxCandidates)) {
      if (list.full) break
      const heading = findFirst(item, (el) => el.name === "h2", containerBudget)
      const link = findFirst(heading ?? item, (el) => el.name === "a" && el.attribs["href"] !== undefined, containerBudget)
      if (link === undefined) continue
      list.add(textOf(heading ?? link, 200), unwrapBing(link.attribs["href"], pageUrl), snippetOf(item))
    }
    return list.results
  }
}
