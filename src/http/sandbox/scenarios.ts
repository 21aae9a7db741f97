// DemoBank's scenarios for scripts: GET /sandbox/scenarios, every magic value DemoBank reacts to,
// its outcome and its callbacks (public: it tells nothing about any account, only what the test
// bank does), and POST /sandbox/scenarios/{id}/run, which runs one for the account whose
// credentials ask (app/run-scenario.ts) and answers what it created and how it ended.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { runScenario, type ScenarioRun } from '../../app/run-scenario.js';
import { SCENARIOS } from '../../bank/demo-bank-scenarios.js';
import { PaymentState, paymentState } from '../operator/merchant-routes.js';
import { SubscriptionStatus, subscriptionStatus } from '../v1/subscription-resource.js';

const tags = ['Quipu: sandbox'];

const Scenario = Type.Object({
  id: Type.String(),
  flow: Type.String({ enum: ['payment', 'mandate', 'charge'] }),
  trigger: Type.String({ description: 'What the developer does or sends' }),
  outcome: Type.String(),
  callbacks: Type.Array(Type.String(), { description: 'What Quipu sends because of it' }),
});

const Run = Type.Object({
  scenario: Type.String(),
  outcome: Type.String({
    description: "The payment's status when the run made one (done, pending, verifying), else the subscription's (ENABLED, SIGNED, DISABLED)",
  }),
  payment: Type.Optional(PaymentState),
  subscription: Type.Optional(SubscriptionStatus),
});

/** A run as the API answers it and `quipu scenarios run --json` prints it. */
export const scenarioRunView = (run: ScenarioRun) => ({
  scenario: run.scenarioId,
  outcome: run.outcome,
  ...(run.payment && { payment: paymentState(run.payment) }),
  ...(run.subscription && { subscription: subscriptionStatus(run.subscription) }),
});

export const scenarioRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/sandbox/scenarios',
    {
      schema: {
        tags,
        summary: "DemoBank's scenarios: magic RUTs and coordinates, their outcomes and callbacks",
        security: [],
        response: { 200: Type.Object({ scenarios: Type.Array(Scenario) }) },
      },
    },
    async () => ({ scenarios: [...SCENARIOS] }),
  );
};

/** In the sandbox's developer scope (index.ts): it acts on the account of the credentials. */
export const scenarioRunRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/sandbox/scenarios/:id/run',
    {
      schema: {
        tags,
        summary:
          "Run one of DemoBank's scenarios on the account: its payment or subscription is created and taken through the payer's and DemoBank's steps; charge-refused answers the charge's 400",
        params: Type.Object({ id: Type.String({ maxLength: 64, description: 'Scenario id, as GET /sandbox/scenarios lists them' }) }),
        response: { 200: Run },
      },
      config: { auditAction: 'developer.scenario' },
    },
    async (request) => scenarioRunView(await runScenario(request.ctx, request.merchant!, request.params.id)),
  );
};
