// The real `quipu` command line and server as child processes (quipu-processes.ts), and what a
// describe block of tests that start them needs around them.
import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase, type TestDatabase } from './database.js';
import type { ServerProcess } from './quipu-processes.js';

export * from './quipu-processes.js';

/**
 * For a describe block whose tests start `quipu serve` processes: a database of its own, made
 * before them, and the processes they add to `started`, stopped after them, before it is dropped.
 */
export function withServerProcesses(): { readonly database: TestDatabase; readonly started: ServerProcess[] } {
  let database: TestDatabase | undefined;
  const started: ServerProcess[] = [];
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    for (const quipu of started) await quipu.stop();
    await database?.drop();
  });
  return {
    get database() {
      return database!;
    },
    started,
  };
}
