// A PostgreSQL server that speaks TLS, for tests of the database's transport: the test machine's
// PostgreSQL runs without TLS, so this proxy stands in front of it as a server on another machine
// would. It answers the client's SSLRequest with 'S', completes the TLS handshake with the test's
// certificate (test-certificates.ts) and passes the decrypted stream on to the real server, which
// it reaches only once the client speaks inside the session: a client that refused the
// certificate never gets there. A client that asks for no TLS is passed on in the clear, so that
// a test sees it happen rather than a refusal. Every connection is recorded.
import net from 'node:net';
import tls from 'node:tls';
import type { ServerCertificate } from './test-certificates.js';

/** PostgreSQL's SSLRequest: a length of 8, then this code (protocol.html, SSL Session Encryption). */
const SSL_REQUEST = 80877103;

export interface ProxiedConnection {
  /** The TLS version the handshake agreed (`TLSv1.3`); null in the clear; undefined while the handshake runs or after it failed. */
  protocol: string | null | undefined;
  /** The client went on to speak (its startup message) and was passed on to PostgreSQL. */
  passedOn: boolean;
}

export interface PostgresTlsProxy {
  port: number;
  connections: ProxiedConnection[];
  close(): Promise<void>;
}

/** A proxy on 127.0.0.1, on a free port, to PostgreSQL at `upstream` with `certificate`. */
export async function startPostgresTlsProxy(upstream: { host: string; port: number }, certificate: ServerCertificate): Promise<PostgresTlsProxy> {
  const connections: ProxiedConnection[] = [];
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    // A client that hangs up after refusing the certificate is no failure of the proxy.
    socket.on('error', () => socket.destroy());
  };

  /** From the client's first bytes on (`first`), both ways until either side closes. */
  const passOn = (client: net.Socket, first: Buffer, connection: ProxiedConnection) => {
    connection.passedOn = true;
    const server = net.connect(upstream.port, upstream.host);
    track(server);
    server.write(first);
    client.pipe(server).pipe(client);
    client.once('close', () => server.destroy());
    server.once('close', () => client.destroy());
  };

  const listener = net.createServer((socket) => {
    track(socket);
    const connection: ProxiedConnection = { protocol: undefined, passedOn: false };
    connections.push(connection);
    socket.once('data', (first: Buffer) => {
      const sslRequest = first.length === 8 && first.readInt32BE(0) === 8 && first.readInt32BE(4) === SSL_REQUEST;
      if (!sslRequest) {
        connection.protocol = null;
        return passOn(socket, first, connection);
      }
      socket.pause();
      socket.write('S');
      const session = new tls.TLSSocket(socket, { isServer: true, key: certificate.key, cert: certificate.cert });
      track(session);
      session.once('secure', () => (connection.protocol = session.getProtocol()));
      session.once('data', (startup: Buffer) => passOn(session, startup, connection));
    });
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  return {
    port: (listener.address() as net.AddressInfo).port,
    connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        listener.close(() => resolve());
      }),
  };
}
