/**
 * Splitting text into words without regular expressions over untrusted
 * text: one linear scan, whatever the input.
 *
 * @module
 */

/** The non-empty runs of `text` between separators (the characters `isSeparator` holds for), in order. */
export const splitWords = (text: string, isSeparator: (char: string) => boolean): ReadonlyArray<string> => {
  const words: Array<string> = []
  let word = ""
  for (const char of text) {
    if (isSeparator(char)) {
      if (word !== "") words.push(word)
      word = ""
    } else word += char
  }
  if (word !== "") words.push(word)
  return words
}
