// Newest-first listings are paged by position, not by offset: a page ends with a cursor naming its
// last row (when it was made, and its id, which breaks ties), and the next page starts right after
// it. Rows written meanwhile are newer than every cursor already given, so they neither shift nor
// repeat a page the way an offset would. The cursor is opaque to clients: base64url of JSON.

export interface PagePosition {
  /** Milliseconds: when the row was made. */
  at: number;
  id: string;
}

export function encodePageCursor(position: PagePosition): string {
  return Buffer.from(JSON.stringify([position.at, position.id])).toString('base64url');
}

/** Undefined for anything this encoding did not produce. */
export function decodePageCursor(cursor: string): PagePosition | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && Number.isSafeInteger(value[0]) && typeof value[1] === 'string') return { at: value[0], id: value[1] };
  } catch {
    // Not JSON: not a cursor a listing gave.
  }
  return undefined;
}
