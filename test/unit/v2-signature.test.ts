// The v2 request signature: the provider's three test vectors, and each step of the recipe
// (RFC 3986 encoding, sorting, the JSON body, constant-time comparison, the header), and the other
// spellings a client may sign: Java's doubles, the default port, the host's letter case.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  javaDoubleText,
  otherBaseSpellings,
  parseSignatureHeader,
  percentEncode,
  requestSignatureMatches,
  signature,
  signatureMatches,
  stringToSign,
} from '../../src/domain/v2-signature.js';

const SECRET = 'secret-key';

describe('v2 signature test vectors (secret "secret-key", receiver 1234)', () => {
  it('signs a form POST', () => {
    const text = stringToSign('POST', 'https://khipu.com/api/2.0/payments', [
      ['subject', 'ejemplo de compra'],
      ['amount', '1000'],
      ['currency', 'CLP'],
    ]);
    expect(text).toBe('POST&https%3A%2F%2Fkhipu.com%2Fapi%2F2.0%2Fpayments&amount=1000&currency=CLP&subject=ejemplo%20de%20compra');
    expect(signature(SECRET, text)).toBe('8b06e63d9666201586f62440ef4e382f2ffb5f1ce122ff87a6d9b3a3064d4aff');
  });

  it('signs a GET by id', () => {
    expect(signature(SECRET, stringToSign('GET', 'https://khipu.com/api/2.0/payments/gqzdy6chjne9', []))).toBe(
      'ab944841d6edc4fdf3fff5cc950e5f6e74f13be125019c47a8c05559be18912f',
    );
  });

  it('signs a GET by notification token (query parameters are signed)', () => {
    const params = [['notification_token', '9dec8aa176c5223026919b3b5579a4776923e646ff3be686b9e6b62ec042e91f']] as const;
    expect(signature(SECRET, stringToSign('GET', 'https://khipu.com/api/2.0/payments', params))).toBe(
      '39adbfc57938eb37d0bfcd707bfff3a5834e0a0a7fd80ea1484ad1c0bcf9139e',
    );
  });
});

describe('percentEncode', () => {
  it('keeps exactly the RFC 3986 unreserved characters', () => {
    expect(percentEncode('AZaz09-._~')).toBe('AZaz09-._~');
    expect(percentEncode(' !"#$%&\'()*+,/:;=?@[]')).toBe('%20%21%22%23%24%25%26%27%28%29%2A%2B%2C%2F%3A%3B%3D%3F%40%5B%5D');
  });

  it('encodes UTF-8 bytes in upper-case hex', () => {
    expect(percentEncode('Señor €')).toBe('Se%C3%B1or%20%E2%82%AC');
    expect(percentEncode('😀')).toBe('%F0%9F%98%80');
  });
});

describe('stringToSign', () => {
  it('upper-cases the method', () => {
    expect(stringToSign('delete', 'https://h/2.0/payments/x', [])).toBe('DELETE&https%3A%2F%2Fh%2F2.0%2Fpayments%2Fx');
  });

  it('sorts by encoded key, whatever the order given', () => {
    const a = stringToSign('POST', 'https://h/p', [
      ['b', '2'],
      ['a_b', '3'],
      ['a', '1'],
    ]);
    const b = stringToSign('POST', 'https://h/p', [
      ['a', '1'],
      ['a_b', '3'],
      ['b', '2'],
    ]);
    expect(a).toBe(b);
    expect(a).toBe('POST&https%3A%2F%2Fh%2Fp&a=1&a_b=3&b=2');
  });

  it('signs empty values as key=', () => {
    expect(stringToSign('POST', 'https://h/p', [['body', '']])).toBe('POST&https%3A%2F%2Fh%2Fp&body=');
  });

  it('appends a JSON body as sent, after the parameters', () => {
    expect(stringToSign('POST', 'https://h/p', [['q', '1']], '{"amount":10}')).toBe('POST&https%3A%2F%2Fh%2Fp&q=1&{"amount":10}');
  });
});

describe('signatureMatches', () => {
  const text = 'GET&https%3A%2F%2Fh%2Fp';
  const good = createHmac('sha256', SECRET).update(text).digest('hex');

  it('accepts the right hash, in either case of hex', () => {
    expect(signatureMatches(SECRET, text, good)).toBe(true);
    expect(signatureMatches(SECRET, text, good.toUpperCase())).toBe(true);
  });

  it('refuses another secret, another text, a changed digit and a wrong length', () => {
    expect(signatureMatches('other-secret', text, good)).toBe(false);
    expect(signatureMatches(SECRET, `${text}&a=1`, good)).toBe(false);
    expect(signatureMatches(SECRET, text, `${good.slice(0, -1)}${good.endsWith('0') ? '1' : '0'}`)).toBe(false);
    expect(signatureMatches(SECRET, text, good.slice(0, 62))).toBe(false);
    expect(signatureMatches(SECRET, text, `${good}00`)).toBe(false);
    expect(signatureMatches(SECRET, text, 'z'.repeat(64))).toBe(false);
  });
});

describe('parseSignatureHeader', () => {
  const hash = 'ab944841d6edc4fdf3fff5cc950e5f6e74f13be125019c47a8c05559be18912f';

  it('reads <receiver_id>:<hash>', () => {
    expect(parseSignatureHeader(`1234:${hash}`)).toEqual({ receiverId: 1234, hash });
    expect(parseSignatureHeader(` 990939:${hash.toUpperCase()} `)).toEqual({ receiverId: 990939, hash: hash.toUpperCase() });
  });

  it('refuses anything else', () => {
    for (const value of [
      hash,
      `:${hash}`,
      `abc:${hash}`,
      `1234:${hash.slice(1)}`,
      `1234:${hash}0`,
      `1234 ${hash}`,
      `Basic ${hash}`,
      `-1:${hash}`,
      `1234567890123456:${hash}`,
    ]) {
      expect(parseSignatureHeader(value), value).toBeUndefined();
    }
  });
});

describe('javaDoubleText: what the Java client signed for a double it sent', () => {
  it('is the Double.toString text from 10^7 up and below 10^-3', () => {
    expect(javaDoubleText('1.0E+7')).toBe('1.0E7');
    expect(javaDoubleText('12345678.5')).toBe('1.23456785E7');
    expect(javaDoubleText('12345678')).toBe('1.2345678E7');
    expect(javaDoubleText('2.5E+10')).toBe('2.5E10');
    expect(javaDoubleText('0.00010')).toBe('1.0E-4');
  });

  it('is nothing where both write the same text, or the text is no number', () => {
    for (const sent of ['1000.0', '9999999.99', '0.001', '1.0E7', '0', 'abc', '1,000']) expect(javaDoubleText(sent), sent).toBeUndefined();
  });
});

describe('otherBaseSpellings', () => {
  it('writes the default port out, and the host as the Host header spells it when that is the same host', () => {
    expect(otherBaseSpellings('https://pay.example.com/shop', 'PAY.Example.com')).toEqual([
      'https://pay.example.com:443/shop',
      'https://PAY.Example.com/shop',
      'https://PAY.Example.com:443/shop',
    ]);
    expect(otherBaseSpellings('http://pay.example.com', 'pay.example.com:80')).toEqual(['http://pay.example.com:80']);
  });

  it('takes no other host from the Host header, and no other port', () => {
    expect(otherBaseSpellings('https://pay.example.com', 'pay.example.org')).toEqual(['https://pay.example.com:443']);
    expect(otherBaseSpellings('http://127.0.0.1:3000', '127.0.0.1:3000')).toEqual([]);
    expect(otherBaseSpellings('http://127.0.0.1:3000', undefined)).toEqual([]);
  });
});

describe('requestSignatureMatches', () => {
  const request = {
    method: 'POST',
    base: 'https://pay.example.com',
    path: '/api/2.0/payments',
    host: 'pay.example.com',
    params: [
      ['amount', '1.0E+7'],
      ['subject', '1.0E+7'],
    ] as const,
  };
  const signedOver = (url: string, params: [string, string][]) => signature(SECRET, stringToSign('POST', url, params));

  it('accepts the text as sent, and Java doubles signed in Double.toString notation', () => {
    expect(
      requestSignatureMatches(
        SECRET,
        signedOver('https://pay.example.com/api/2.0/payments', [
          ['amount', '1.0E+7'],
          ['subject', '1.0E+7'],
        ]),
        request,
      ),
    ).toBe(true);
    expect(
      requestSignatureMatches(
        SECRET,
        signedOver('https://pay.example.com/api/2.0/payments', [
          ['amount', '1.0E7'],
          ['subject', '1.0E+7'],
        ]),
        request,
      ),
    ).toBe(true);
    expect(
      requestSignatureMatches(
        SECRET,
        signedOver('https://pay.example.com:443/api/2.0/payments', [
          ['amount', '1.0E7'],
          ['subject', '1.0E+7'],
        ]),
        request,
      ),
    ).toBe(true);
  });

  it('keeps other fields as sent, and refuses another number', () => {
    expect(
      requestSignatureMatches(
        SECRET,
        signedOver('https://pay.example.com/api/2.0/payments', [
          ['amount', '1.0E7'],
          ['subject', '1.0E7'],
        ]),
        request,
      ),
    ).toBe(false);
    expect(
      requestSignatureMatches(
        SECRET,
        signedOver('https://pay.example.com/api/2.0/payments', [
          ['amount', '2.0E7'],
          ['subject', '1.0E+7'],
        ]),
        request,
      ),
    ).toBe(false);
    expect(
      requestSignatureMatches(
        'other-secret',
        signedOver('https://pay.example.com/api/2.0/payments', [
          ['amount', '1.0E+7'],
          ['subject', '1.0E+7'],
        ]),
        request,
      ),
    ).toBe(false);
  });
});
