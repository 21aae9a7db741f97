// GET /sandbox/scenarios: every magic value DemoBank reacts to, its outcome and its callbacks, as
// JSON for scripts. Public: it tells nothing about any account, only what the test bank does.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { SCENARIOS } from '../../bank/demo-bank-scenarios.js';

const Scenario = Type.Object({
  id: Type.String(),
  flow: Type.String({ enum: ['payment', 'mandate', 'charge'] }),
  trigger: Type.String({ description: 'What the developer does or sends' }),
  outcome: Type.String(),
  callbacks: Type.Array(Type.String(), { description: 'What Quipu sends because of it' }),
});

export const scenarioRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/sandbox/scenarios',
    { schema: { tags: ['Quipu: sandbox'], summary: "DemoBank's scenarios: magic RUTs and coordinates, their outcomes and callbacks", security: [], response: { 200: Type.Object({ scenarios: Type.Array(Scenario) }) } } },
    async () => ({ scenarios: [...SCENARIOS] }),
  );
};
