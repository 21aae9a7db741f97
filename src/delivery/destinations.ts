// A worker's load per destination (receiver origin): requests in flight and claimed rows waiting.
// At most `limit` requests go to one destination at once, and a destination that already has a
// round of its own (`limit` rows) waiting gets no more claimed: a receiver that hangs then holds
// only its share of the worker, and claims pass over its notifications to reach the others'.

/** Every email goes through the one mail server: one destination, whoever it is addressed to. */
const EMAIL_DESTINATION = 'smtp';

/** The origin a notification is sent to (undici pools connections by the same key), or the mail server. */
export function destinationOf(url: string): string {
  if (url.startsWith('mailto:')) return EMAIL_DESTINATION;
  // A URL stored before URLs were checked is its own destination: its attempts fail with the parser's error.
  return URL.canParse(url) ? new URL(url).origin : url;
}

interface Load {
  inFlight: number;
  waiting: number;
}

export class DestinationLoad {
  readonly #load = new Map<string, Load>();

  constructor(readonly limit: number) {}

  /** A claimed row joins the destination's queue. */
  wait(destination: string): void {
    this.#of(destination).waiting++;
  }

  hasRoom(destination: string): boolean {
    return (this.#load.get(destination)?.inFlight ?? 0) < this.limit;
  }

  /** A waiting row is sent (`started`) or handed back. True when that leaves the destination room for more claims. */
  leave(destination: string, started: boolean): boolean {
    const load = this.#of(destination);
    const wasSaturated = load.waiting >= this.limit;
    load.waiting--;
    if (started) load.inFlight++;
    else this.#forget(destination, load);
    return wasSaturated && load.waiting < this.limit;
  }

  finish(destination: string): void {
    const load = this.#of(destination);
    load.inFlight--;
    this.#forget(destination, load);
  }

  /** Destinations with a round waiting: claims skip them. */
  saturated(): string[] {
    return [...this.#load].filter(([, load]) => load.waiting >= this.limit).map(([destination]) => destination);
  }

  /** Rows waiting for a free slot of the worker, not for their destination's own round to come. */
  waitingForSlots(): number {
    let count = 0;
    for (const load of this.#load.values()) if (load.waiting < this.limit) count += load.waiting;
    return count;
  }

  #of(destination: string): Load {
    let load = this.#load.get(destination);
    if (!load) this.#load.set(destination, (load = { inFlight: 0, waiting: 0 }));
    return load;
  }

  #forget(destination: string, load: Load): void {
    if (load.inFlight === 0 && load.waiting === 0) this.#load.delete(destination);
  }
}
