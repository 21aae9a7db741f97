// The request latency histogram of /metrics (quipu_http_request_duration_seconds), by method,
// route and status. prom-client's Histogram, even through a child kept per series, converts,
// validates and hashes its label set on every observation: 1.5% of a production GET's CPU in its
// profile, more than any other of the API's own hooks (docs/benchmarks.md, "2026-12-02, fourth session").
// Here a series is found by the route, the method and the status in turn (strings the router and
// the HTTP parser hand over already hashed, and a number: no key is built per request), and an
// observation is a bucket search and three additions; prom-client's registry still formats it,
// through the same `get()` its metrics have.
import type { Aggregator, Metric, MetricValueWithName, Registry } from 'prom-client';

type Labels = Record<'method' | 'route' | 'status', string>;

interface Series {
  labels: Labels;
  /** counts[i]: observations at most buckets[i] and above the bound before it; the last, above every bound. */
  counts: number[];
  sum: number;
  count: number;
}

export class RouteLatency {
  readonly type = 'histogram';
  readonly aggregator: Aggregator = 'sum';
  readonly #series = new Map<string, Map<string, Map<number, Series>>>();

  constructor(
    readonly name: string,
    readonly help: string,
    /** Upper bounds in seconds, ascending. */
    readonly buckets: readonly number[],
    registry: Registry,
  ) {
    // The registry asks each metric only for get() (and reset() on resetMetrics): what this has.
    registry.registerMetric(this as unknown as Metric);
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.#series.get(route);
    if (!byMethod) this.#series.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (!series) {
      series = { labels: { method, route, status: String(status) }, counts: new Array<number>(this.buckets.length + 1).fill(0), sum: 0, count: 0 };
      byStatus.set(status, series);
    }
    let i = 0;
    while (i < this.buckets.length && seconds > this.buckets[i]!) i++;
    series.counts[i]! += 1;
    series.sum += seconds;
    series.count += 1;
  }

  reset(): void {
    this.#series.clear();
  }

  /** As prom-client's Histogram reports itself: cumulative buckets with `le`, then the sum and the count, per series. */
  async get() {
    const values: MetricValueWithName<string>[] = [];
    const every = [...this.#series.values()].flatMap((byMethod) => [...byMethod.values()].flatMap((byStatus) => [...byStatus.values()]));
    for (const { labels, counts, sum, count } of every) {
      let cumulative = 0;
      counts.forEach((n, i) => {
        cumulative += n;
        const le = i < this.buckets.length ? this.buckets[i]! : '+Inf';
        values.push({ metricName: `${this.name}_bucket`, labels: { le, ...labels }, value: cumulative });
      });
      values.push({ metricName: `${this.name}_sum`, labels, value: sum });
      values.push({ metricName: `${this.name}_count`, labels, value: count });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}
