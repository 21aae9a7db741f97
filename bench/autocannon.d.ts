// What the bench uses of autocannon's programmatic interface (the package ships no types; its
// command line, which load.ts also drives, answers the same Result in JSON).
declare module 'autocannon' {
  export interface Request {
    method?: 'GET' | 'POST';
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    setupRequest?: (request: Request) => Request;
  }
  interface Options {
    url: string;
    connections: number;
    duration: number;
    requests: Request[];
  }
  interface Histogram {
    average: number;
    total: number;
    p50: number;
    p99: number;
  }
  export interface Result {
    requests: Histogram;
    latency: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    /** Dates, or their JSON text from the command line. */
    start: Date | string;
    finish: Date | string;
  }
  export default function autocannon(options: Options): Promise<Result>;
}
