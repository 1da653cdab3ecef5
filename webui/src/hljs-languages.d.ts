// highlight.js ships types for its entry points, not for each language file.
declare module "highlight.js/lib/languages/*" {
  import type { LanguageFn } from "highlight.js"
  const language: LanguageFn
  export default language
}
