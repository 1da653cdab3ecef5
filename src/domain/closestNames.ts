/**
 * "Did you mean…": ranking known names by how close they are to a wrong one.
 *
 * @module
 */

/** Edit distance (insertions, deletions, substitutions) between two strings. */
export const editDistance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1)
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution))
    }
    previous = current
  }
  return previous[b.length] ?? 0
}

/**
 * The known names closest to `wanted`, best first: those within a few edits
 * (a third of the longer name, at least 2) or containing it, or contained in
 * it, ignoring case. At most `limit` names.
 */
export const closestNames = (wanted: string, known: ReadonlyArray<string>, limit = 3): ReadonlyArray<string> => {
  const target = wanted.toLowerCase()
  return known
    .map((name) => {
      const candidate = name.toLowerCase()
      const distance = editDistance(target, candidate)
      const related = candidate.includes(target) || target.includes(candidate)
      const threshold = Math.max(2, Math.floor(Math.max(target.length, candidate.length) / 3))
      return { name, distance, close: related || distance <= threshold }
    })
    .filter((entry) => entry.close)
    .sort((x, y) => x.distance - y.distance || x.name.localeCompare(y.name))
    .slice(0, limit)
    .map((entry) => entry.name)
}
