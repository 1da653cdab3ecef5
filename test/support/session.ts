/** A session on a scripted model, with the script's recorder: the library's own test Layer. */
export { scriptedSession } from "easyai/testing"
