// The baseline: a bare Fastify server with one GET and one schema-validated POST handler and
// nothing else (no auth, no database). Quipu's figures are reported as ratios to it.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/hello', async () => ({ hello: 'world' }));
app.post(
  '/echo',
  {
    schema: {
      body: {
        type: 'object',
        required: ['amount', 'currency', 'subject'],
        properties: { amount: { type: 'number' }, currency: { type: 'string', maxLength: 255 }, subject: { type: 'string', maxLength: 255 } },
      },
    },
  },
  async (request) => ({ received: (request.body as { subject: string }).subject }),
);
const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
console.log(`listening ${address}`);
