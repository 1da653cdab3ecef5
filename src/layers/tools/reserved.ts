/**
 * The names of easyai's built-in tools. An operator's external tool may not
 * take one, even when that built-in is not registered in this session: a
 * manifest must mean the same thing wherever it is deployed.
 *
 * @module
 */
export const reservedToolNames: ReadonlyArray<string> = [
  "bash",
  "evaluate",
  "python3",
  "fs",
  "fs_read",
  "fs_write",
  "fs_edit",
  "fs_list",
  "fs_glob",
  "fs_grep",
  "fs_check_path",
  "fs_cwd",
  "fs_sandbox",
  "tool_lookup",
  "datetime",
  "web",
  "web_search",
  "web_fetch",
  "system_load",
  "system_memory",
  "system_disk_usage",
  "system_processes",
  "plan",
  "knowledge_save",
  "knowledge_append",
  "knowledge_search",
  "knowledge_load",
  "knowledge_list",
  "knowledge_delete",
  "knowledge_keywords",
  "read_skill"
]
