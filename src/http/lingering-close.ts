// A body over BODY_LIMIT is refused (413) before it has all arrived, and the answer closes the
// connection. Closed at once, the socket still holds bytes the client sent, so the kernel resets
// the connection, and a client still sending its body (undici's fetch, most SDKs) often reads the
// reset instead of the 413, and retries. So the close lingers, as nginx's does: once the answer is
// written the server's side is shut, so the client reads the answer to its end, and what the
// client still sends is read and dropped until its body ends, LINGER_BYTES more have come, or
// REQUEST_TIMEOUT_MS has passed; then the socket is closed.
import type { IncomingMessage } from 'node:http';

/** Bytes read and dropped after a refusal at most: a body six times the default BODY_LIMIT is read to its end. */
export const LINGER_BYTES = 64 * 1024 * 1024;

/** Called before the refusal is written (an onSend hook): the body is drained from then on. */
export function lingerBeforeClosing(request: IncomingMessage, timeoutMs: number): void {
  const socket = request.socket;
  const close = () => socket.destroy();
  let left = LINGER_BYTES;
  // A listener of its own keeps Node from dumping the body unread, and counts what it drops.
  request.on('data', (chunk: Buffer) => {
    left -= chunk.length;
    if (left < 0) close();
  });
  // Node ends an answer that closes its connection with destroySoon: shut the writing side, then
  // destroy the socket once the answer is out. Here it waits for the body instead, with a timer of
  // its own: past the answer, Node's check closed the connection only after the longer of
  // HEADERS_TIMEOUT_MS and REQUEST_TIMEOUT_MS (measured on Node 20).
  socket.destroySoon = () => {
    socket.end();
    if (request.complete) return close();
    request.once('end', close);
    const timer = setTimeout(close, timeoutMs).unref();
    socket.once('close', () => clearTimeout(timer));
  };
}
