import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, smtpUrlProblem } from '../../src/config.js';

describe('mail settings', () => {
  it('default to the local inbox, sent from no-reply at the host of PUBLIC_BASE_URL', () => {
    expect(loadConfig({})).toMatchObject({ smtpUrl: undefined, smtpFrom: 'Quipu <no-reply@localhost>' });
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://Pay.Example.com:8443/quipu' }).smtpFrom).toBe('Quipu <no-reply@pay.example.com>');
  });

  it('read a mail server URL with its credentials and a sender', () => {
    const config = loadConfig({ SMTP_URL: 'smtps://user:p%40ss@mail.example.com:465', SMTP_FROM: 'Cobros Tienda <cobros@tienda.example>' });
    expect(config).toMatchObject({ smtpUrl: 'smtps://user:p%40ss@mail.example.com:465', smtpFrom: 'Cobros Tienda <cobros@tienda.example>' });
    expect(loadConfig({ SMTP_URL: 'smtp://127.0.0.1:2525', SMTP_FROM: 'cobros@tienda.example' }).smtpFrom).toBe('cobros@tienda.example');
  });

  it('refuse a URL that is not SMTP and a sender that is not one address on one line', () => {
    expect(() => loadConfig({ SMTP_URL: 'http://mail.example.com' })).toThrow(new ConfigError('SMTP_URL must be an smtp:// or smtps:// URL'));
    expect(() => loadConfig({ SMTP_URL: 'smtp://mail example.com' })).toThrow(ConfigError);
    // The URL's query would override Quipu's TLS options in nodemailer: any certificate, or none at all.
    for (const query of ['tls.rejectUnauthorized=false', 'ignoreTLS=true', 'requireTLS=false', 'secure=false', 'opportunisticTLS=true', 'IGNORETLS=true']) {
      const url = `smtps://user:s3cret@mail.example.com:465?pool=true&${query}`;
      const problem = `must not set ${query.split('=')[0]}: TLS to the mail server is SMTP_REQUIRE_TLS's to loosen, and a private CA is trusted through NODE_EXTRA_CA_CERTS`;
      expect(smtpUrlProblem(url), query).toBe(problem);
      expect(() => loadConfig({ SMTP_URL: url }), query).toThrow(new ConfigError(`SMTP_URL ${problem}`));
    }
    expect(smtpUrlProblem('smtps://user:s3cret@mail.example.com:465?pool=true&name=quipu.example')).toBeUndefined();
    for (const from of ['Quipu', 'Quipu <a@b.c>\r\nBcc: x@y.z', 'a@b.c, d@e.f', 'Quipu <a@b.c> <d@e.f>']) {
      expect(() => loadConfig({ SMTP_FROM: from }), from).toThrow(ConfigError);
    }
  });
});
