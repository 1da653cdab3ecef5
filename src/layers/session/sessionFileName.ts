/**
 * Where the chat keeps its conversation.
 *
 * @module
 */

/** The session file's name, in the working directory. */
export const sessionFileName = ".easyai_session"
