// The settings a production installation (SANDBOX=false) must have for `quipu serve` and
// `quipu worker` to start: its own collection account, a set encryption key and an https address.

export const COLLECTION_SETTINGS = {
  COLLECTION_BANK_ID: 'dfFbF',
  COLLECTION_ACCOUNT_TYPE: 'cuenta_vista',
  COLLECTION_ACCOUNT_NUMBER: '00-123-45678-09',
  COLLECTION_HOLDER_NAME: 'Pagos Andes SpA',
  COLLECTION_HOLDER_RUT: '123456785',
};

export const PRODUCTION_SETTINGS: Record<string, string> = {
  SANDBOX: 'false',
  ...COLLECTION_SETTINGS,
  QUIPU_ENCRYPTION_KEY: '5f'.repeat(32),
  PUBLIC_BASE_URL: 'https://pay.example',
  // Stopped at once: the drain that lets a load balancer stop first has its own test (test/cli/stop-and-start.test.ts).
  SHUTDOWN_DRAIN_MS: '0',
};
