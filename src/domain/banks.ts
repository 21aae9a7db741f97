// The bank catalogue: every bank a payer can pay from, with the limits that decide predictions.
// Amounts are in units of 1/10000 of the bank's currency.
import { parseAmount } from './money.js';

export interface Bank {
  bankId: string;
  name: string;
  message: string;
  currency: string;
  minAmount: number;
  type: 'Persona' | 'Empresa';
  /** bank_id of the personal bank this business bank belongs to, or '' */
  parent: string;
  /** Only developer-mode accounts see and use it. */
  developerOnly: boolean;
  /** Largest transfer the bank allows in a day. */
  maxAmount: number;
  /** Largest transfer to a recipient the payer has not paid before. */
  newDestinataryMaxAmount: number;
  /** Hours a newly added recipient stays limited to newDestinataryMaxAmount. */
  coolDownHours: number;
  /** Colour of the generated logo. */
  color: string;
}

const clp = (text: string): number => {
  const parsed = parseAmount(text, 0);
  if (!parsed.ok) throw new Error(`bad catalogue amount ${text}`);
  return parsed.units;
};

function bank(
  bankId: string,
  name: string,
  type: Bank['type'],
  parent: string,
  limits: { min: string; max: string; newMax: string; coolDownHours: number },
  color: string,
  message = '',
): Bank {
  return {
    bankId,
    name,
    message,
    currency: 'CLP',
    minAmount: clp(limits.min),
    type,
    parent,
    developerOnly: false,
    maxAmount: clp(limits.max),
    newDestinataryMaxAmount: clp(limits.newMax),
    coolDownHours: limits.coolDownHours,
    color,
  };
}

const PERSONAL = { min: '200', max: '5000000', newMax: '250000', coolDownHours: 24 };
const BUSINESS = { min: '200', max: '50000000', newMax: '1000000', coolDownHours: 24 };

export const DEMO_BANK_ID = 'Bawdf';

export const BANKS: readonly Bank[] = [
  {
    ...bank(DEMO_BANK_ID, 'DemoBank', 'Persona', '', { min: '200', max: '5000000', newMax: '500000', coolDownHours: 2 }, '#6d28d9'),
    message: 'Este es un banco de pruebas. Las transacciones no son reales.',
    developerOnly: true,
  },
  bank('SDdGj', 'Banco Estado', 'Persona', '', { ...PERSONAL, min: '1000' }, '#f97316', 'Tarifa de $300 de transferencia a otros bancos, usando CuentaRUT.'),
  bank('dfFbF', 'Banco de Chile (Edwards Citi)', 'Persona', '', PERSONAL, '#1e3a8a'),
  bank('Bqzve', 'Banco de Chile Empresas', 'Empresa', 'dfFbF', BUSINESS, '#1e3a8a'),
  bank('WbPkK', 'Banco Santander', 'Persona', '', PERSONAL, '#dc2626'),
  bank('XmQhA', 'Banco Santander Empresas', 'Empresa', 'WbPkK', BUSINESS, '#dc2626'),
  bank('LrNcd', 'Banco BCI', 'Persona', '', PERSONAL, '#0f766e'),
  bank('TgYuP', 'Banco BCI Empresas', 'Empresa', 'LrNcd', BUSINESS, '#0f766e'),
  bank('HvJsm', 'Scotiabank', 'Persona', '', PERSONAL, '#b91c1c'),
  bank('KpWeZ', 'Banco Itaú', 'Persona', '', PERSONAL, '#ea580c'),
  bank('QfRtb', 'Banco Falabella', 'Persona', '', { ...PERSONAL, newMax: '200000' }, '#65a30d'),
  bank('NzCxv', 'Banco Security', 'Empresa', '', BUSINESS, '#7c3aed'),
];

/** The banks an account may pay with: the test bank only exists for developer-mode accounts. */
export function banksFor(developer: boolean): Bank[] {
  return BANKS.filter((b) => developer || !b.developerOnly);
}

export function findBank(bankId: string, developer: boolean): Bank | undefined {
  return banksFor(developer).find((b) => b.bankId === bankId);
}
