// A reverse proxy on the same machine as a test server, as nginx's proxy_pass puts one in front of
// Quipu: it listens on a port of its own and passes each request on to the server from a loopback
// address, with the headers the proxy is set to add (X-Forwarded-For, Forwarded, Via, a Host).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReverseProxy {
  url: string;
  close(): Promise<void>;
}

/** `adds`: the headers passed on besides the request's own, from the client's address. */
export async function startReverseProxy(target: string, adds: (client: string) => Record<string, string>): Promise<ReverseProxy> {
  const upstream = new URL(target);
  const server = http.createServer((request, response) => {
    const headers = { ...request.headers, host: upstream.host, ...adds(request.socket.remoteAddress ?? '') };
    const passed = http.request({ host: upstream.hostname, port: upstream.port, method: request.method, path: request.url, headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    passed.on('error', () => response.writeHead(502).end());
    request.pipe(passed);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
