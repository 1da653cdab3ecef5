/**
 * Model output → safe HTML: marked (GFM) with highlight.js for code, then
 * DOMPurify. Raw HTML in the model's text is shown as text, not rendered
 * (bar a few harmless inline tags); DOMPurify is the second line of defence.
 */
import DOMPurify from "dompurify"
import hljs from "highlight.js/lib/core"
import bash from "highlight.js/lib/languages/bash"
import c from "highlight.js/lib/languages/c"
import cpp from "highlight.js/lib/languages/cpp"
import css from "highlight.js/lib/languages/css"
import diff from "highlight.js/lib/languages/diff"
import go from "highlight.js/lib/languages/go"
import java from "highlight.js/lib/languages/java"
import javascript from "highlight.js/lib/languages/javascript"
import json from "highlight.js/lib/languages/json"
import markdown from "highlight.js/lib/languages/markdown"
import python from "highlight.js/lib/languages/python"
import rust from "highlight.js/lib/languages/rust"
import shell from "highlight.js/lib/languages/shell"
import sql from "highlight.js/lib/languages/sql"
import typescript from "highlight.js/lib/languages/typescript"
import xml from "highlight.js/lib/languages/xml"
import yaml from "highlight.js/lib/languages/yaml"
import { Marked, type Tokens } from "marked"

const languages = { bash, c, cpp, css, diff, go, java, javascript, json, markdown, python, rust, shell, sql, typescript, xml, yaml }
for (const [name, language] of Object.entries(languages)) hljs.registerLanguage(name, language)

export const escapeHtml = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")

/** Highlighted code is cached: while an answer streams only its last block changes. */
const highlighted = new Map<string, string>()

const highlight = (code: string, language: string): string => {
  if (language === "" || hljs.getLanguage(language) === undefined) return escapeHtml(code)
  const key = `${language}\u0000${code}`
  const cached = highlighted.get(key)
  if (cached !== undefined) return cached
  let html: string
  try {
    html = hljs.highlight(code, { language, ignoreIllegals: true }).value
  } catch {
    html = escapeHtml(code)
  }
  if (highlighted.size > 200) highlighted.clear()
  highlighted.set(key, html)
  return html
}

const harmlessTag = /^<\/?(br|sub|sup|kbd|mark|u|ins|s|del|small)\s*\/?>$/i

const parser = new Marked({ gfm: true, breaks: false, async: false })
parser.use({
  renderer: {
    code({ text, lang }: Tokens.Code): string {
      const language = (lang ?? "").trim().split(/\s+/, 1)[0]?.replace(/[^\w+#.-]/g, "").toLowerCase() ?? ""
      const known = language !== "" && hljs.getLanguage(language) !== undefined
      const body = highlight(text.replace(/\n$/, ""), known ? language : "")
      return `<div class="code-block"><div class="code-head"><span class="code-lang">${escapeHtml(language === "" ? "text" : language)}</span></div>` +
        `<pre><code class="hljs${known ? ` language-${escapeHtml(language)}` : ""}">${body}</code></pre></div>\n`
    },
    html({ text }: Tokens.HTML | Tokens.Tag): string {
      return harmlessTag.test(text.trim()) ? text.trim() : escapeHtml(text)
    },
    checkbox({ checked }: Tokens.Checkbox): string {
      return `<span class="task" role="img" aria-label="${checked ? "done" : "not done"}">${checked ? "☑" : "☐"}</span> `
    },
    image({ href, text }: Tokens.Image): string {
      // The page's Content-Security-Policy loads no remote images: link to them instead.
      if (/^data:image\/(png|gif|jpeg|webp);/i.test(href)) return `<img src="${escapeHtml(href)}" alt="${escapeHtml(text)}">`
      return `<a href="${escapeHtml(href)}">${escapeHtml(text === "" ? href : text)}</a>`
    }
  }
})

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    node.setAttribute("target", "_blank")
    node.setAttribute("rel", "noopener noreferrer nofollow")
  }
})

const purifyConfig = {
  FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select", "option", "iframe", "object", "embed", "svg", "math"],
  FORBID_ATTR: ["style", "id", "name"],
  ALLOW_DATA_ATTR: false
}

/** Markdown → sanitized HTML, ready for innerHTML. */
export const renderMarkdown = (source: string): string => {
  let html: string
  try {
    html = parser.parse(source, { async: false })
  } catch {
    html = `<p>${escapeHtml(source)}</p>`
  }
  return DOMPurify.sanitize(html, purifyConfig)
}
