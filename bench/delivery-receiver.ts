// The merchant's endpoint for the delivery bench, in its own process (its own core): answers 200
// to every POST and counts requests per payment id, so lost and duplicated deliveries can be
// counted. GET /stats reports; POST /reset starts a new count.
import http from 'node:http';

const hits = new Map<string, number>();
const ID = /"payment_id":"([a-z0-9]+)"/;

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    let duplicates = 0;
    let requests = 0;
    for (const n of hits.values()) {
      requests += n;
      duplicates += n - 1;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ requests, distinct: hits.size, duplicates }));
    return;
  }
  if (req.url === '/reset') {
    hits.clear();
    res.writeHead(200).end();
    return;
  }
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    // Other callbacks (a subscription's signing, a failed charge's error) name no payment.
    const id = ID.exec(body)?.[1];
    if (id) hits.set(id, (hits.get(id) ?? 0) + 1);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening ${typeof address === 'object' && address ? address.port : ''}`);
});
