// Currencies of the contract and the decimals each accepts. v3 accepts all of them; v2's enum
// omits CLF.

export interface Currency {
  code: string;
  decimals: number;
  v2: boolean;
}

const CURRENCIES: readonly Currency[] = [
  { code: 'CLP', decimals: 0, v2: true },
  { code: 'CLF', decimals: 4, v2: false },
  { code: 'ARS', decimals: 2, v2: true },
  { code: 'PEN', decimals: 2, v2: true },
  { code: 'MXN', decimals: 2, v2: true },
  { code: 'USD', decimals: 2, v2: true },
  { code: 'EUR', decimals: 2, v2: true },
  { code: 'BOB', decimals: 2, v2: true },
  { code: 'COP', decimals: 2, v2: true },
];

export const V3_CURRENCIES = CURRENCIES.map((c) => c.code);
export const V2_CURRENCIES = CURRENCIES.filter((c) => c.v2).map((c) => c.code);

export function findCurrency(code: string): Currency | undefined {
  return CURRENCIES.find((c) => c.code === code);
}
