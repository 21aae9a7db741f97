// Chilean RUT (Rol Único Tributario): digits plus a check digit (0-9 or K), modulo 11.
// Accepts "11.111.111-1", "11111111-1" and "111111111".

export interface Rut {
  body: number;
  checkDigit: string;
}

export function parseRut(text: string): Rut | undefined {
  const clean = text.replace(/[.\s]/g, '').toUpperCase();
  const m = /^(\d{1,9})-?([\dK])$/.exec(clean);
  if (!m) return undefined;
  const body = Number(m[1]);
  if (body < 1_000 || rutCheckDigit(body) !== m[2]) return undefined;
  return { body, checkDigit: m[2]! };
}

export function rutCheckDigit(body: number): string {
  let sum = 0;
  let factor = 2;
  for (let n = body; n > 0; n = Math.floor(n / 10)) {
    sum += (n % 10) * factor;
    factor = factor === 7 ? 2 : factor + 1;
  }
  const digit = 11 - (sum % 11);
  return digit === 11 ? '0' : digit === 10 ? 'K' : String(digit);
}

/** "11.111.111-1" */
export function formatRut(rut: Rut): string {
  return `${rut.body.toLocaleString('de-DE')}-${rut.checkDigit}`;
}
