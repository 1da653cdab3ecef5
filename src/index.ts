/**
 * easyai: an Effect-typed agent framework. A local GGUF model or any
 * OpenAI-compatible endpoint behind one typed API, tools in ten lines, an
 * agentic loop with typed errors and real cancellation.
 *
 * @module
 */

// Tier 1: the façade.
export { type AskOptions, type ConnectOptions, EasyAgent, easyai, type StructuredAskOptions } from "./easyai.js"

// Domain: data, tagged errors, pure functions.
export * from "./domain/AgentEvent.js"
export * from "./domain/AgentRpc.js"
export * from "./domain/ClientConfig.js"
export * from "./domain/contextFill.js"
export * from "./domain/EngineConfig.js"
export * from "./domain/errors.js"
export * from "./domain/httpErrors.js"
export * from "./domain/mcp.js"
export * from "./domain/memory.js"
export * from "./domain/Message.js"
export { FinishReason, Finished, ModelEvent, ToolCallRequested } from "./domain/ModelEvent.js"
export * from "./domain/plan.js"
export * from "./domain/Sampling.js"
export * from "./domain/reasoningFilter.js"
export * from "./domain/Sanitize.js"
export * from "./domain/SystemPrompt.js"
export * as Tool from "./domain/Tool.js"
export { define as tool, type HandlerContext, type PlainHandler } from "./domain/Tool.js"
export * from "./domain/ToolCall.js"
export type { JsonObjectFormat, JsonSchemaFormat, ResponseFormat } from "./domain/ResponseFormat.js"
export { decodeOutput, type OutputSchema, outputFormat } from "./domain/StructuredOutput.js"
export * as OpenAiChatCompletions from "./domain/openai/ChatCompletions.js"
export * as OpenAiCompletions from "./domain/openai/Completions.js"
export * as OpenAiEmbeddings from "./domain/openai/Embeddings.js"
export { Embedder, type Embeddings, type Service as EmbedderService } from "./services/Embedder.js"
export * as LocalEmbedder from "./layers/embedder/LocalEmbedder.js"
export * as RemoteEmbedder from "./layers/embedder/RemoteEmbedder.js"

// Services: the contracts.
export { Agent, type AgentError, type RunInput, type Service as AgentService } from "./services/Agent.js"
export {
  type AgentSession,
  AgentSessions,
  type Opened as OpenedAgentSession,
  type Service as AgentSessionsService,
  type SessionStore
} from "./services/AgentSessions.js"
export { Approval, Decision, type Service as ApprovalService } from "./services/Approval.js"
export {
  ChatModel,
  type ChatRequest,
  type ModelInfo,
  type Service as ChatModelService,
  type ToolChoice
} from "./services/ChatModel.js"
export {
  Client,
  type Health,
  type RemoteModel,
  type RemoteTool,
  type Service as ClientService
} from "./services/Client.js"
export {
  type CompletionRequest as EngineCompletionRequest,
  Engine,
  type Native as EngineNative,
  type Service as EngineService
} from "./services/Engine.js"
export {
  McpClient,
  type McpServer,
  type McpServerConfig,
  type McpTool,
  type Service as McpClientService
} from "./services/McpClient.js"
export { MemoryStore, type SaveOptions, type Service as MemoryStoreService } from "./services/MemoryStore.js"
export { Plan, type Service as PlanService } from "./services/Plan.js"
export { type ComposeInput, Preamble, type Service as PreambleService } from "./services/Preamble.js"
export {
  type DirectoryEntry,
  type DirectoryListing,
  type FileInfo,
  type ProcessResult,
  type ProcessSpec,
  type ResolvedPath,
  Sandbox,
  type Service as SandboxService
} from "./services/Sandbox.js"
export {
  type ChatOptions,
  interruptedMark,
  type Service as SessionService,
  Session,
  type SystemAppend
} from "./services/Session.js"
export { defaultAliases, type Service as ToolRegistryService, type ToolMode, ToolRegistry } from "./services/ToolRegistry.js"

// Layers: the implementations.
export * as AgentLive from "./layers/agent/AgentLive.js"
export * as AgentRpcHandlers from "./layers/remoteSession/AgentRpcHandlers.js"
export * as AgentSessionsLive from "./layers/remoteSession/AgentSessionsLive.js"
export * as RemoteSession from "./layers/remoteSession/RemoteSession.js"
export * as ApprovalLive from "./layers/approval/ApprovalLive.js"
export * as ClientLive from "./layers/client/ClientLive.js"
export * as EngineLive from "./layers/engine/EngineLive.js"
export * as LocalChatModel from "./layers/model/LocalChatModel.js"
export * as McpClientLive from "./layers/mcp/McpClientLive.js"
export * as MemoryStoreLive from "./layers/memory/MemoryStoreLive.js"
export * as RemoteChatModel from "./layers/model/RemoteChatModel.js"
export * as ScriptedChatModel from "./layers/model/ScriptedChatModel.js"
export * as PlanLive from "./layers/plan/PlanLive.js"
export * as PreambleLive from "./layers/preamble/PreambleLive.js"
export * as SandboxLive from "./layers/sandbox/SandboxLive.js"
export * as ToolRegistryLive from "./layers/registry/ToolRegistryLive.js"
export * as SessionLive from "./layers/session/SessionLive.js"
export * as SessionStack from "./layers/session/SessionStack.js"
export { bash } from "./layers/tools/bash.js"
export { datetime } from "./layers/tools/datetime.js"
export { defaultTools } from "./layers/tools/defaults.js"
export { evaluate } from "./layers/tools/evaluate.js"
export { type ExternalToolsLoad, loadExternalTools, loadExternalToolsFile } from "./layers/tools/external/load.js"
export { fsTools } from "./layers/tools/fs/fsTools.js"
export * as HostToolsLive from "./layers/tools/HostToolsLive.js"
export { knowledgeTools } from "./layers/tools/knowledge.js"
export { planTool } from "./layers/tools/plan.js"
export { type WebOptions } from "./layers/tools/web/options.js"
export { InvalidNetwork, WebError } from "./layers/tools/web/errors.js"
export { webTools } from "./layers/tools/web/webTools.js"
export { systemTools } from "./layers/tools/system/systemTools.js"
export { systemDiskUsage } from "./layers/tools/system/disk.js"
export { systemLoad } from "./layers/tools/system/load.js"
export { systemMemory } from "./layers/tools/system/memory.js"
export { systemProcesses } from "./layers/tools/system/processes.js"
export { agentsFileName, loadAgentsFile } from "./layers/workspace/agentsFile.js"
export { loadSkills, type SkillsLoad } from "./layers/workspace/skills.js"
export { toolLookup } from "./layers/tools/toolLookup.js"

// Programs' library surface: the HTTP server as a value and as a Layer.
export { ApiError } from "./programs/server/ApiError.js"
export * as McpDispatcher from "./programs/mcp/dispatcher.js"
export * as McpServerApp from "./programs/mcp/McpServerApp.js"
export * as McpStdio from "./programs/mcp/stdioTransport.js"
export * as ServerApp from "./programs/server/ServerApp.js"
export * as ServerLive from "./programs/server/ServerLive.js"
export { directoryStore } from "./programs/server/sessionStore.js"
export type { ListenOptions, ServerOptions } from "./programs/server/ServerOptions.js"
export type { CorsPolicy } from "./programs/server/originPolicy.js"
export type { WebUiOptions } from "./programs/server/webui.js"
