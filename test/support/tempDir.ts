import { mkdtempSync, realpathSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"

/** A fresh, canonical temporary directory (symbolic links in the temp path resolved). */
export const tempDir = (prefix = "easyai-test-"): string => realpathSync(mkdtempSync(path.join(tmpdir(), prefix)))
