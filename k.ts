import { Effect } from "effect"
import { ToolRegistry } from "easyai"
import { defaultToolsLayer } from "./src/layers/tools/defaults.js"
