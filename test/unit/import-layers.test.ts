// The layer rule of docs/architecture.md: every import in src/ stays in its folder or goes down the
// order below, never up nor across, and no files import each other round a circle. Type-only
// imports count (test/helpers/import-graph.ts says why).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileCycles, folderOf, importEdges } from '../helpers/import-graph.js';

/**
 * The folders of src/, lowest first; folders in one row are independent of each other. main/
 * assembles processes from all the rest; cli/, on top, parses commands and starts them through it.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['domain'],
  ['config'],
  ['store'],
  ['runtime', 'bank', 'render'],
  ['delivery'],
  ['app'],
  ['jobs', 'http'],
  ['main'],
  ['cli'],
];

const rank = new Map(LAYERS.flatMap((row, i) => row.map((folder) => [folder, i] as const)));
const edges = importEdges(path.resolve(new URL('../../src', import.meta.url).pathname));

describe('the imports of src/', () => {
  it('stay in the layers named here', () => {
    const unplaced = new Set([...edges.flatMap((e) => [e.from, e.to])].map(folderOf).filter((folder) => !rank.has(folder)));
    expect([...unplaced]).toEqual([]);
  });

  it('point only down the layers', () => {
    const upward = edges
      .filter((e) => folderOf(e.from) !== folderOf(e.to) && rank.get(folderOf(e.from))! <= rank.get(folderOf(e.to))!)
      .map((e) => `${e.from} -> ${e.to}`);
    expect(upward).toEqual([]);
  });

  it('make no circle of files', () => {
    expect(fileCycles(edges)).toEqual([]);
  });
});
