/**
 * The approval gates: approve everything (no person present), deny
 * everything (unattended and untrusted), or a policy — auto-approve per
 * tool and per MCP server, ask the person present about the rest.
 *
 * @module
 */
import { Effect, Layer } from "effect"
import { displayToolName } from "../../domain/mcp.js"
import type { ToolCall } from "../../domain/ToolCall.js"
import { Approval, Decision } from "../../services/Approval.js"

/** Every call runs: for programs where no person is present to confirm. */
export const autoApprove: Layer.Layer<Approval> = Layer.succeed(Approval, {
  check: () => Effect.succeed(Decision.Approved())
})

/** No call runs; the model is told why. */
export const deny = (reason = "tool calls are disabled for this agent"): Layer.Layer<Approval> =>
  Layer.succeed(Approval, { check: () => Effect.succeed(Decision.Denied({ reason })) })

/** What a person is asked about one call. */
export interface ApprovalRequest {
  readonly call: ToolCall
  /** The tool as people know it: `alias.tool` for an MCP server's tool, else its name. */
  readonly displayName: string
}

/** Who decides, and what is approved without asking. */
export interface PolicyOptions {
  /**
   * Approved without asking: a tool's name (`bash`), an MCP server's tool
   * (`docs.search`), every tool of a server (`docs.*`), or everything (`*`).
   */
  readonly autoApprove?: ReadonlyArray<string>
  /**
   * Approve every local tool (one that is not an MCP server's) without
   * asking: the operator chose them with the program's flags.
   */
  readonly autoApproveLocal?: boolean
  /**
   * Local tools that `autoApproveLocal` does not cover: they ask unless
   * `autoApprove` names them (the hybrid shell asks before `bash`).
   */
  readonly confirmLocal?: ReadonlyArray<string>
  /**
   * Asks the person present; `true` approves. Without it, a call that is not
   * auto-approved is denied: nobody is there to say yes.
   */
  readonly ask?: (request: ApprovalRequest) => Effect.Effect<boolean>
}

/** What the model reads when the person said no. */
export const declinedReason = "the user declined this tool call"

/** Whether `pattern` covers the tool `displayName` (or its registered `name`). */
export const covers = (pattern: string, name: string, displayName: string): boolean => {
  if (pattern === "*" || pattern === name || pattern === displayName) return true
  if (!pattern.endsWith(".*")) return false
  const server = pattern.slice(0, -1)
  return displayName.startsWith(server) && displayName !== name
}

/**
 * The gate of a program with a person present: calls covered by
 * `autoApprove` run, others are put to `ask`; a "no" becomes an error result
 * telling the model the user declined.
 */
export const policy = (options: PolicyOptions): Layer.Layer<Approval> =>
  Layer.succeed(Approval, {
    check: (call) => {
      const displayName = displayToolName(call.name)
      const local = displayName === call.name && !(options.confirmLocal ?? []).includes(call.name)
      if ((options.autoApproveLocal === true && local) || (options.autoApprove ?? []).some((pattern) => covers(pattern, call.name, displayName))) {
        return Effect.succeed(Decision.Approved())
      }
      if (options.ask === undefined) {
        return Effect.succeed(Decision.Denied({ reason: `no one is present to approve ${displayName}, and it is not auto-approved` }))
      }
      return Effect.map(
        options.ask({ call, displayName }),
        (yes) => (yes ? Decision.Approved() : Decision.Denied({ reason: declinedReason }))
      )
    }
  })
