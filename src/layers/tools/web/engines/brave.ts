/**
 * Brave Search (`search.brave.com/search`): each web result is an element
 * with `data-type="web"` (class `snippet`), holding a link to the result,
 * a title element (class `title` / `snippet-title`) and a description
 * (class `snippet-description` / `generic-snippet` / `snippet-content`).
 * Brave's class names change often, so every part has fallbacks.
 *
 * @module
 */
import { classes, type Element, findAll, findFirst, hasClass, parseTree, textOf } from "../dom.js"
import { absoluteHttp, containerBudget, joinBase, maxCandidates, ResultList, type SearchEngine } from "../engine.js"

const titleClasses = ["snippet-title", "search-snippet-title", "title"]
const snippetClasses = ["snippet-description", "generic-snippet", "snippet-content", "description"]

const isResult = (el: Element): boolean =>
  el.attribs["data-type"] === "web" || (hasClass(el, "snippet") && hasClass(el, "fdb"))

const firstWithClass = (root: Element, names: ReadonlyArray<string>): Element | undefined => {
  for (const name of names) {
    const found = findFirst(root, (el) => classes(el).includes(name), containerBudget)
    if (found !== undefined) return found
  }
  return undefined
}

/** `brave`: search.brave.com. */
export const brave: SearchEngine = {
  name: "brave",
  defaultBaseUrl: "https://search.brave.com",
  searchUrl: (base, query) => joinBase(base, `/search?q=${encodeURIComponent(query)}&source=web`),
  extract: (html, pageUrl) => {
    const list = new ResultList()
    const page = new URL(pageUrl)
    for (const item of findAll(parseTree(html), isResult, maxCandidates)) {
      if (list.full) break
      const link = findFirst(item, (el) => {
        if (el.name !== "a") return false
        const url = absoluteHttp(el.attribs["href"], pageUrl)
        return url !== undefined && url.host !== page.host
      }, containerBudget)
      if (link === undefined) continue
      const title = firstWithClass(item, titleClasses) ?? link
      const snippet = firstWithClass(item, snippetClasses)
      list.add(textOf(title, 200), absoluteHttp(link.attribs["href"], pageUrl), snippet === undefined ? "" : textOf(snippet, 300))
    }
    return list.results
  }
}
