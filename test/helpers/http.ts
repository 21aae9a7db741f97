// Small helpers to talk JSON to a test server.
import net from 'node:net';

export interface JsonResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export async function call<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  options: { apiKey?: string; body?: unknown; headers?: Record<string, string>; rawBody?: string } = {},
): Promise<JsonResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey) headers['x-api-key'] = options.apiKey;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, headers: res.headers, body: parsed as T };
}

/** A client bound to one account's API key. */
export function client(baseUrl: string, apiKey: string) {
  return {
    get: <T = any>(path: string, headers?: Record<string, string>) => call<T>(baseUrl, 'GET', path, { apiKey, headers }),
    post: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) => call<T>(baseUrl, 'POST', path, { apiKey, body, headers }),
    delete: <T = any>(path: string) => call<T>(baseUrl, 'DELETE', path, { apiKey }),
  };
}

/** Writes `raw` on a new connection to the server at `baseUrl` and reads until the server closes it. */
export function rawExchange(baseUrl: string, raw: string): Promise<string> {
  const { port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.end(raw));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}
