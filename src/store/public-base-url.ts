// The public base URL the last `quipu serve` started with, kept beside the other settings every
// process of an installation shares: the one-shot commands write the URLs the server would.
import type { Kysely } from 'kysely';
import type { DB } from './schema.js';
import { readSetting, writeSetting } from './settings.js';

const NAME = 'server.public_base_url';

export async function recordPublicBaseUrl(db: Kysely<DB>, url: string): Promise<void> {
  await writeSetting(db, NAME, url);
}

export async function recordedPublicBaseUrl(db: Kysely<DB>): Promise<string | undefined> {
  return readSetting(db, NAME);
}
