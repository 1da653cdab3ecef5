/**
 * A cap on the connections one client address holds open at once, so a
 * single client cannot take every socket the process can open (idle
 * keep-alive connections, trickling bodies, hanging streams). A connection
 * over the cap is closed as it arrives, before a byte of it is read.
 *
 * @module
 */
import type { Server } from "node:http"
import type { Socket } from "node:net"

/** Counts `node`'s connections by remote address and closes those past `max` for their address. */
export const capPerClient = (node: Server, max: number): void => {
  // Address → open connections. Touched only from node's event callbacks, one at a time.
  const open = new Map<string, number>()
  // Prepended so a refused socket is closed before node's own listener sets up a parser for it.
  node.prependListener("connection", (socket: Socket) => {
    const address = socket.remoteAddress ?? ""
    const count = open.get(address) ?? 0
    if (count >= max) {
      socket.destroy()
      return
    }
    open.set(address, count + 1)
    socket.once("close", () => {
      const left = (open.get(address) ?? 1) - 1
      if (left <= 0) open.delete(address)
      else open.set(address, left)
    })
  })
}
