// pino-socket ships no types: what Quipu calls of it (its README's options).
declare module 'pino-socket' {
  import type { Writable } from 'node:stream';

  interface SocketTransportOptions {
    address: string;
    port: number;
    mode: 'tcp' | 'udp';
    secure?: boolean;
    reconnect?: boolean;
    recovery?: boolean;
    recoveryQueueMaxSize?: number;
  }

  /** A stream of log lines to the socket, once it is first connected. */
  export default function socketTransport(options: SocketTransportOptions): Promise<Writable>;
}
