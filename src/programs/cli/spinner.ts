/**
 * The one-line activity indicator on stderr while the model thinks or a tool
 * runs: `⠹ thinking 45% · ctx 12%`. It draws only on a terminal, and
 * everything else that writes to the terminal clears it first, so it never
 * mixes with the answer, a question or a log line.
 *
 * @module
 */

const frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
const frameMillis = 80

/** A spinner on one terminal stream; a no-op where that stream is not a terminal. */
export class Spinner {
  private label: string | undefined
  private frame = 0
  private timer: ReturnType<typeof setInterval> | undefined

  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {}

  /** Whether it draws at all: only where it shares a terminal with the answer, never into a redirected output. */
  get enabled(): boolean {
    return this.stream.isTTY === true && process.stdout.isTTY === true
  }

  /** Shows `label` (starting the animation if it was stopped). */
  show(label: string): void {
    if (!this.enabled) return
    this.label = label
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.draw(), frameMillis)
      // A spinner never keeps the process alive.
      this.timer.unref()
    }
    this.draw()
  }

  /** Stops and erases it; the cursor is left at the start of the empty line. */
  clear(): void {
    if (this.timer === undefined) return
    clearInterval(this.timer)
    this.timer = undefined
    this.label = undefined
    this.stream.write("\r\u001b[2K")
  }

  private draw(): void {
    if (this.label === undefined) return
    this.frame = (this.frame + 1) % frames.length
    this.stream.write(`\r\u001b[2K\u001b[2m${frames[this.frame]} ${this.label}\u001b[0m`)
  }
}
