// Following a table by its growing id across processes (`quipu listen`: message attempts, API
// requests). Reading "every id after the last one seen" would miss rows whose transaction commits
// after a row with a later id was read (PostgreSQL takes sequence values before commit, and several
// processes write), so ids passed over (a later id was read first) are asked for again until they
// appear or LOOK_BACK_MS has passed; most of them are rolled-back or never-used ids. A row is missed
// only if it becomes visible more than LOOK_BACK_MS after a later id did. What is remembered: at
// most MAX_PASSED_OVER ids.

export const LOOK_BACK_MS = 60_000;
export const MAX_PASSED_OVER = 1000;
const ROWS_PER_READ = 500;

export interface IdSource<Row> {
  /** The highest id there is. */
  last(): Promise<number>;
  /** In id order, at most `limit`: the rows after `afterId`, and those of `ids`. */
  after(afterId: number, ids: readonly number[], limit: number): Promise<Row[]>;
  id(row: Row): number;
}

export class IdTail<Row> {
  #lastId = 0;
  /** Ids a later id was seen before, with when (wall time): their transactions may still commit. */
  readonly #passedOver = new Map<number, number>();

  constructor(
    private readonly source: IdSource<Row>,
    /** Which rows are reported; every row read counts for the ids passed over. */
    private readonly matches: (row: Row) => boolean = () => true,
  ) {}

  /** Takes note of what is there already: the polls report only what appears after this. */
  async start(wall: number): Promise<void> {
    // The ids just below the last one are read too, so that those still uncommitted count as passed over.
    this.#lastId = Math.max(0, (await this.source.last()) - ROWS_PER_READ);
    await this.poll(wall);
  }

  /** The rows that appeared since the last poll, in the order they were read. `wall`: real time now. */
  async poll(wall: number): Promise<Row[]> {
    const found: Row[] = [];
    for (;;) {
      const rows = await this.source.after(this.#lastId, [...this.#passedOver.keys()], ROWS_PER_READ);
      for (const row of rows) {
        const id = this.source.id(row);
        if (!this.#passedOver.delete(id)) {
          for (let passed = Math.max(this.#lastId + 1, id - MAX_PASSED_OVER); passed < id; passed++) this.#passedOver.set(passed, wall);
          this.#lastId = id;
        }
        if (this.matches(row)) found.push(row);
      }
      if (rows.length < ROWS_PER_READ) break;
    }
    for (const [id, since] of this.#passedOver) {
      if (since >= wall - LOOK_BACK_MS && this.#passedOver.size <= MAX_PASSED_OVER) break;
      this.#passedOver.delete(id);
    }
    return found;
  }
}
