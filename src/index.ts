/**
 * easyai: an Effect-typed agent framework. A local GGUF model or any
 * OpenAI-compatible endpoint behind one typed API, tools in ten lines, an
 * agentic loop with typed errors and real cancellation.
 *
 * The root holds what a program writes: the façade, the service tags and
 * their interfaces, the Layer constructors (one namespace each, as the
 * Effect packages export them) and the domain types a user builds. Test
 * doubles live in `easyai/testing`. Anything not exported here is internal
 * and may change without notice.
 *
 * @module
 */

// The façade.
export { EasyAgent, easyai } from "./easyai.js"
export type { AskOptions, ConnectOptions, StructuredAskOptions } from "./easyaiOptions.js"
export { EasyAiError, isEasyAiError } from "./EasyAiError.js"
export * as Tool from "./domain/Tool.js"
export { define as tool, type HandlerContext, type PlainHandler } from "./domain/Tool.js"

// The domain types a user writes.
export {
  AgentEvent,
  HopReset,
  MessagesAppended,
  StopReason,
  ToolCallFinished,
  ToolCallStarted,
  TurnComplete
} from "./domain/AgentEvent.js"
export { AssistantMessage, ChatMessage, SystemMessage, ToolMessage, UserMessage } from "./domain/Message.js"
export { JsonSchema, ToolAnnotations, ToolCall, ToolResult, ToolSpec } from "./domain/ToolCall.js"
export {
  FinishReason,
  Finished,
  ModelEvent,
  PromptProgress,
  ReasoningDelta,
  TextDelta,
  ToolCallRequested,
  Usage
} from "./domain/ModelEvent.js"
export {
  ChatModelError,
  ConfigurationError,
  ContextOverflow,
  FileError,
  HopLimitReached,
  ManifestError,
  isChatModelError,
  ModelError,
  ModelLoadError,
  OutputDecodeError,
  ProcessError,
  SandboxSetupError,
  SandboxViolation,
  SkillError,
  ToolFailure,
  ToolRegistrationError
} from "./domain/errors.js"
export { type ClientError, HttpStatusError, InvalidResponseError, TransportError } from "./domain/httpErrors.js"
export { Penalties, PresetName, SamplingOverrides, SamplingParams } from "./domain/Sampling.js"
export * as Sampling from "./domain/Sampling.js"
export {
  type DownloadProgress,
  type EngineConfig,
  type OverflowStrategy,
  type RopeScaling
} from "./domain/EngineConfig.js"
export { type ClientConfig, clientConfig, type PenaltyOverrides, type TlsOptions } from "./domain/ClientConfig.js"
export { type PreambleOptions } from "./domain/SystemPrompt.js"
export * as SystemPrompt from "./domain/SystemPrompt.js"
export type { JsonObjectFormat, JsonSchemaFormat, ResponseFormat } from "./domain/ResponseFormat.js"
export { decodeOutput, type OutputSchema, outputFormat } from "./domain/StructuredOutput.js"
export {
  type AppendResult,
  type EntryMeta,
  type KeywordsResult,
  type ListResult,
  type MemoryEntry,
  MemoryError,
  type SaveResult,
  type SearchHit,
  type SearchResult
} from "./domain/memory.js"
export {
  PlanError,
  PlanItem,
  type PlanRequest,
  type PlanResult,
  PlanSnapshot,
  PlanStatus
} from "./domain/plan.js"
export * as AgentRpc from "./domain/AgentRpc.js"

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
export { Embedder, type Embeddings, type Service as EmbedderService } from "./services/Embedder.js"
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
export { type ChatOptions, type Service as SessionService, Session, type SystemAppend } from "./services/Session.js"
export { defaultAliases, type Service as ToolRegistryService, type ToolMode, ToolRegistry } from "./services/ToolRegistry.js"

// Layers: the implementations, one namespace each.
export * as AgentLive from "./layers/agent/AgentLive.js"
export * as AgentRpcHandlers from "./layers/remoteSession/AgentRpcHandlers.js"
export * as AgentSessionsLive from "./layers/remoteSession/AgentSessionsLive.js"
export * as ApprovalLive from "./layers/approval/ApprovalLive.js"
export * as ClientLive from "./layers/client/ClientLive.js"
export * as EngineLive from "./layers/engine/EngineLive.js"
export * as HostToolsLive from "./layers/tools/HostToolsLive.js"
export * as HttpClientLive from "./layers/http/HttpClientLive.js"
export * as LocalChatModel from "./layers/model/LocalChatModel.js"
export * as LocalEmbedder from "./layers/embedder/LocalEmbedder.js"
export * as McpClientLive from "./layers/mcp/McpClientLive.js"
export * as MemoryStoreLive from "./layers/memory/MemoryStoreLive.js"
export * as SpanRecord from "./layers/tracing/SpanRecord.js"
export * as TraceReplay from "./layers/tracing/replay.js"
export * as Tracing from "./layers/tracing/Tracing.js"
export * as PlanLive from "./layers/plan/PlanLive.js"
export * as PreambleLive from "./layers/preamble/PreambleLive.js"
export * as RemoteChatModel from "./layers/model/RemoteChatModel.js"
export * as RemoteEmbedder from "./layers/embedder/RemoteEmbedder.js"
export * as RemoteSession from "./layers/remoteSession/RemoteSession.js"
export * as SandboxLive from "./layers/sandbox/SandboxLive.js"
export * as SessionLive from "./layers/session/SessionLive.js"
export * as SessionStack from "./layers/session/SessionStack.js"
export * as ToolRegistryLive from "./layers/registry/ToolRegistryLive.js"

// The built-in tools.
export { bash } from "./layers/tools/bash.js"
export { datetime } from "./layers/tools/datetime.js"
export * as Toolset from "./layers/tools/toolset.js"
export { evaluate } from "./layers/tools/evaluate.js"
export { type ExternalToolsLoad, loadExternalTools, loadExternalToolsFile } from "./layers/tools/external/load.js"
export { fsTools } from "./layers/tools/fs/fsTools.js"
export { knowledgeTools } from "./layers/tools/knowledge.js"
export { planTool } from "./layers/tools/plan.js"
export { systemTools } from "./layers/tools/system/systemTools.js"
export { InvalidNetwork, WebError } from "./layers/tools/web/errors.js"
export { type WebOptions } from "./layers/tools/web/options.js"
export { webTools } from "./layers/tools/web/webTools.js"
export { agentsFileName, loadAgentsFile } from "./layers/workspace/agentsFile.js"
export { loadSkills, type SkillsLoad } from "./layers/workspace/skills.js"

// The HTTP apps: values built from services, served by any HttpServer Layer.
export * as McpDispatcher from "./apps/mcp/dispatcher.js"
export * as McpServerApp from "./apps/mcp/McpServerApp.js"
export * as McpStdio from "./apps/mcp/stdioTransport.js"
export * as ServerApp from "./apps/server/ServerApp.js"
export * as ServerLive from "./apps/server/ServerLive.js"
export { directoryStore } from "./apps/server/sessionStore.js"
export type { ListenOptions, ServerOptions } from "./apps/server/ServerOptions.js"
export type { CorsPolicy } from "./apps/server/originPolicy.js"
export type { WebUiOptions } from "./apps/server/webui.js"
