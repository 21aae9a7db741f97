// Open connections per peer address, capped: a client that opens thousands of connections and
// trickles bytes into them (each held until REQUEST_TIMEOUT_MS) would otherwise take every file
// descriptor of the process, and with them every other client's requests. Counted on the socket's
// own peer: behind a load balancer that is the balancer, so raise the cap there or set it to 0.
import type { Server } from 'node:http';

export function capConnectionsPerAddress(server: Server, cap: number): void {
  if (cap === 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket) => {
    const address = socket.remoteAddress ?? '';
    const count = (open.get(address) ?? 0) + 1;
    if (count > cap) {
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = open.get(address)! - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
