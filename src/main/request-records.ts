// Where this process's record of each API request goes (REQUEST_LOG_STORE, docs/request-logs.md),
// chosen here once: what records, reads, prunes and forgets the rows takes them from the context.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { logStreamRecords, NO_REQUEST_RECORDS, type RequestRecords } from '../app/request-records.js';
import { databaseRequestRecords, fileRequestRecords } from '../app/table-request-records.js';
import type { Config } from '../config.js';
import { RequestLogFile } from '../store/request-log-file.js';
import type { DB } from '../store/schema.js';

export function requestRecordsFor(config: Pick<Config, 'requestLogStore' | 'dataDir'>, db: Kysely<DB>, log: Logger): RequestRecords {
  switch (config.requestLogStore) {
    case 'file':
      return fileRequestRecords(new RequestLogFile(config.dataDir), db, log);
    case 'database':
      return databaseRequestRecords(db, log);
    case 'log':
      return logStreamRecords(log);
    case 'off':
      return NO_REQUEST_RECORDS;
  }
}
