// The mail server for the email bench, in its own process (its own core), as the delivery bench's
// receiver is: a real SMTP server (smtp-server) that accepts every email and counts them by
// Message-ID, so lost and duplicated emails can be counted. An HTTP side port reports:
// GET /stats, POST /reset.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

const hits = new Map<string, number>();
const MESSAGE_ID = /^message-id:\s*(<[^>\r\n]+>)/im;

const smtp = new SMTPServer({
  logger: false,
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  onData: (stream, _session, callback) => {
    let head = '';
    stream.on('data', (chunk: Buffer) => {
      // The headers come first: the Message-ID is within the first few kilobytes.
      if (head.length < 8192) head += chunk.toString('utf8');
    });
    stream.on('end', () => {
      const id = MESSAGE_ID.exec(head)?.[1] ?? '';
      hits.set(id, (hits.get(id) ?? 0) + 1);
      callback(null, 'OK: queued');
    });
  },
});

const control = http.createServer((req, res) => {
  if (req.method === 'POST' && req.url === '/reset') {
    hits.clear();
    res.writeHead(200).end();
    return;
  }
  let emails = 0;
  let duplicates = 0;
  for (const n of hits.values()) {
    emails += n;
    duplicates += n - 1;
  }
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ emails, distinct: hits.size, duplicates }));
});

smtp.listen(0, '127.0.0.1', () => {
  control.listen(0, '127.0.0.1', () => {
    const smtpPort = (smtp.server.address() as AddressInfo).port;
    const controlPort = (control.address() as AddressInfo).port;
    console.log(`listening ${smtpPort} ${controlPort}`);
  });
});
