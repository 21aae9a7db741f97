// Every magic value DemoBank reacts to, its outcome and the callbacks it produces: the one table
// DemoBank's code reads its triggers from, GET /sandbox/scenarios serves, and
// docs/automatic-payments.md repeats. A new scenario is a new row here.

/**
 * Coordinates (the challenge's three answers) and RUTs that trigger a scenario. Any two-digit
 * answers other than `pay` and `fail` leave a transfer uncertain; `uncertain` is the one shown and used.
 */
export const DEMO_COORDINATES = { pay: ['11', '22', '33'], fail: ['99', '99', '99'], uncertain: ['12', '34', '56'] } as const;
/** A RUT that signs in at DemoBank as an ordinary payer (any valid RUT does, with the password 1234). */
export const DEMO_RUT = '11.111.111-1';
/** A mandate signed with this RUT waits one bank business day for DemoBank's approval. */
export const PENDING_APPROVAL_RUT = '33.333.333-3';
/** Every debit under a mandate signed with this RUT fails for insufficient funds. */
export const INSUFFICIENT_FUNDS_RUT = '22.222.222-2';

export interface Scenario {
  id: string;
  flow: 'payment' | 'mandate' | 'charge';
  /** What the developer does or sends. */
  trigger: string;
  outcome: string;
  /** What Quipu sends because of it. */
  callbacks: string[];
}

export const SCENARIOS: readonly Scenario[] = [
  {
    id: 'transfer-pays',
    flow: 'payment',
    trigger: `Payer page, DemoBank: any valid RUT, password 1234, coordinates ${DEMO_COORDINATES.pay.join(' ')}`,
    outcome: 'The transfer is executed and reconciled at once: the payment is done',
    callbacks: ["The payment notification (1.3 or 3.0) to the payment's notify_url"],
  },
  {
    id: 'transfer-fails',
    flow: 'payment',
    trigger: `Payer page, DemoBank: coordinates ${DEMO_COORDINATES.fail.join(' ')}`,
    outcome: 'The bank fails the transfer ("Error ejecutando transferencia"); the payment stays pending and the payer may try again',
    callbacks: [],
  },
  {
    id: 'transfer-uncertain',
    flow: 'payment',
    trigger: `Payer page, DemoBank: any other two-digit coordinates, e.g. ${DEMO_COORDINATES.uncertain.join(' ')}`,
    outcome: 'The result is uncertain: the payment is verifying until POST /sandbox/demobank/payments/{id}/confirm|fail or `quipu demobank confirm|fail`',
    callbacks: ['On confirm: the payment notification'],
  },
  {
    id: 'mandate-enabled',
    flow: 'mandate',
    trigger: `Signing page, DemoBank: any valid RUT but the two below, password 1234, coordinates ${DEMO_COORDINATES.pay.join(' ')}`,
    outcome: 'The mandate is signed and activated at once: the subscription is ENABLED; the payer lands on return_url',
    callbacks: ['{"subscription_id", "status": "enabled"} to the subscription\'s notify_url'],
  },
  {
    id: 'mandate-rejected',
    flow: 'mandate',
    trigger: `Signing page, DemoBank: coordinates ${DEMO_COORDINATES.fail.join(' ')}`,
    outcome: 'The bank rejects the mandate: the subscription is DISABLED for good; the payer lands on cancel_url',
    callbacks: ['{"subscription_id", "status": "disabled"} to the subscription\'s notify_url'],
  },
  {
    id: 'mandate-pending-approval',
    flow: 'mandate',
    trigger: `Signing page, DemoBank: RUT ${PENDING_APPROVAL_RUT}, coordinates ${DEMO_COORDINATES.pay.join(' ')}`,
    outcome:
      'The mandate is SIGNED and the payer lands on return_url; DemoBank activates it one bank business day later on the developer clock (ENABLED), or when a developer runs `quipu demobank mandates approve|reject <id>`',
    callbacks: ['On activation: "enabled"; on rejection: "disabled"'],
  },
  {
    id: 'mandate-revoked',
    flow: 'mandate',
    trigger:
      'DemoBank portal (/demobank/portal): the payer signs in with their RUT and revokes; or POST /sandbox/demobank/subscriptions/{id}/revoke, `quipu demobank mandates revoke <id>`',
    outcome: 'The subscription is DISABLED; later charges fail',
    callbacks: ['{"subscription_id", "status": "disabled"} to the subscription\'s notify_url'],
  },
  {
    id: 'charge-settles',
    flow: 'charge',
    trigger: 'A charge intent on an ENABLED subscription',
    outcome:
      'Submitted to DemoBank within seconds (the payment reads verifying), settled on the next bank business day after submission (developer clock), then reconciled: the payment is done. POST /sandbox/demobank/charges/{payment_id}/settle or `quipu demobank charges settle <id>` settles it at once',
    callbacks: ["The payment notification (1.3 or 3.0) to the charge's notify_url"],
  },
  {
    id: 'charge-insufficient-funds',
    flow: 'charge',
    trigger: `A charge on a mandate signed with RUT ${INSUFFICIENT_FUNDS_RUT}; or POST /sandbox/demobank/charges/{payment_id}/fail, \`quipu demobank charges fail <id>\``,
    outcome: 'The debit fails on its settlement day ("Fondos insuficientes"): the payment is pending and expired, never done; no automatic retry',
    callbacks: ['{"subscription_id", "transaction_id", "error_message"} to the charge\'s error_response_url'],
  },
  {
    id: 'charge-revoked-mandate',
    flow: 'charge',
    trigger: 'A charge whose mandate the payer revoked before its debit was submitted',
    outcome: 'DemoBank refuses the debit ("Mandato revocado por el titular"): the payment is pending and expired, never done',
    callbacks: ['{"subscription_id", "transaction_id", "error_message"} to the charge\'s error_response_url'],
  },
  {
    id: 'charge-refused',
    flow: 'charge',
    trigger: 'A charge over max_amount, or on a subscription that is not ENABLED (SIGNED, DISABLED) or of another account',
    outcome: 'Refused at once with a 400 naming amount or subscription_id; nothing is written',
    callbacks: [],
  },
];

/** The scenario table's trigger and outcome in Spanish, for the dashboard's pages in Spanish (a test keeps the ids the table's). */
export const SCENARIO_TEXTS_ES: Readonly<Record<string, Pick<Scenario, 'trigger' | 'outcome'>>> = {
  'transfer-pays': {
    trigger: `Página de pago, DemoBank: cualquier RUT válido, clave 1234, coordenadas ${DEMO_COORDINATES.pay.join(' ')}`,
    outcome: 'La transferencia se realiza y se concilia de inmediato: el pago queda done',
  },
  'transfer-fails': {
    trigger: `Página de pago, DemoBank: coordenadas ${DEMO_COORDINATES.fail.join(' ')}`,
    outcome: 'El banco rechaza la transferencia ("Error ejecutando transferencia"); el pago sigue pending y el pagador puede intentarlo de nuevo',
  },
  'transfer-uncertain': {
    trigger: `Página de pago, DemoBank: cualquier otro par de dígitos, p. ej. ${DEMO_COORDINATES.uncertain.join(' ')}`,
    outcome: 'El resultado queda incierto: el pago está verifying hasta POST /sandbox/demobank/payments/{id}/confirm|fail o `quipu demobank confirm|fail`',
  },
  'mandate-enabled': {
    trigger: `Página de firma, DemoBank: cualquier RUT válido salvo los dos de abajo, clave 1234, coordenadas ${DEMO_COORDINATES.pay.join(' ')}`,
    outcome: 'El mandato se firma y se activa de inmediato: la suscripción queda ENABLED; el pagador vuelve a return_url',
  },
  'mandate-rejected': {
    trigger: `Página de firma, DemoBank: coordenadas ${DEMO_COORDINATES.fail.join(' ')}`,
    outcome: 'El banco rechaza el mandato: la suscripción queda DISABLED para siempre; el pagador vuelve a cancel_url',
  },
  'mandate-pending-approval': {
    trigger: `Página de firma, DemoBank: RUT ${PENDING_APPROVAL_RUT}, coordenadas ${DEMO_COORDINATES.pay.join(' ')}`,
    outcome:
      'El mandato queda SIGNED y el pagador vuelve a return_url; DemoBank lo activa un día hábil bancario después en el reloj de desarrollo (ENABLED), o cuando se ejecuta `quipu demobank mandates approve|reject <id>`',
  },
  'mandate-revoked': {
    trigger:
      'Portal de DemoBank (/demobank/portal): el pagador ingresa con su RUT y revoca; o POST /sandbox/demobank/subscriptions/{id}/revoke, `quipu demobank mandates revoke <id>`',
    outcome: 'La suscripción queda DISABLED; los cargos siguientes fallan',
  },
  'charge-settles': {
    trigger: 'Una intención de cargo sobre una suscripción ENABLED',
    outcome:
      'Se envía a DemoBank en segundos (el pago queda verifying), se liquida el día hábil bancario siguiente al envío (reloj de desarrollo) y se concilia: el pago queda done. POST /sandbox/demobank/charges/{payment_id}/settle o `quipu demobank charges settle <id>` lo liquida de inmediato',
  },
  'charge-insufficient-funds': {
    trigger: `Un cargo sobre un mandato firmado con el RUT ${INSUFFICIENT_FUNDS_RUT}; o POST /sandbox/demobank/charges/{payment_id}/fail, \`quipu demobank charges fail <id>\``,
    outcome: 'El débito falla el día de su liquidación ("Fondos insuficientes"): el pago queda pending y vencido, nunca done; no se reintenta solo',
  },
  'charge-revoked-mandate': {
    trigger: 'Un cargo cuyo mandato el pagador revocó antes de que se enviara su débito',
    outcome: 'DemoBank rechaza el débito ("Mandato revocado por el titular"): el pago queda pending y vencido, nunca done',
  },
  'charge-refused': {
    trigger: 'Un cargo sobre max_amount, o sobre una suscripción que no está ENABLED (SIGNED, DISABLED) o es de otra cuenta',
    outcome: 'Se rechaza de inmediato con un 400 que nombra amount o subscription_id; no se escribe nada',
  },
};
