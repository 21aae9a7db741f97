// How a production installation signs in to its mail server (ASVS 13.2.1): `quipu serve` and
// `quipu worker` with SANDBOX=false refuse to start, in one line naming the two ways out, while
// SMTP_URL holds a password (however it is handed over) or reaches another machine without signing
// in; they start with an OAuth 2.0 token file (SMTP_OAUTH2_TOKEN_FILE), with no sign-in to this
// machine, or when the operator says SMTP_CREDENTIALS_ACCEPTED=true. Developer mode takes any.
// A token file with a URL that cannot go with it is a configuration error, said at start.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { mailSignInProblems } from '../../src/delivery/mail-sign-in.js';
import { quipu, serveOnFreePort, startServerProcess, withServerProcesses } from '../helpers/process.js';
import { PRODUCTION_SETTINGS, secretFileSetting } from '../helpers/production.js';

const WAYS_OUT =
  'sign in with a short-lived OAuth 2.0 token the platform refreshes (SMTP_OAUTH2_TOKEN_FILE, the user alone in SMTP_URL), or say SMTP_CREDENTIALS_ACCEPTED=true to accept it';
const PASSWORD = `a mail server sign-in that is not an unchanging password (ASVS 13.2.1): SMTP_URL holds a password; ${WAYS_OUT}`;
const NO_SIGN_IN = (host: string) => `a mail server sign-in (ASVS 13.2.1): SMTP_URL reaches ${host} over the network without signing in; ${WAYS_OUT}`;

const MAIL_PASSWORD = 'mail-password-4411';
const WITH_PASSWORD = `smtps://quipu:${MAIL_PASSWORD}@mail.example:465`;
const TOKEN = 'ya29.a0-an-access-token-the-platform-renders';

describe('mailSignInProblems', () => {
  const production = { sandbox: false, smtpOauth2TokenFile: undefined, smtpCredentialsAccepted: false };

  it('refuses a password and no sign-in to another machine, naming the ways out', () => {
    expect(mailSignInProblems({ ...production, smtpUrl: WITH_PASSWORD })).toEqual([PASSWORD]);
    expect(mailSignInProblems({ ...production, smtpUrl: 'smtp://relay.internal:25' })).toEqual([NO_SIGN_IN('relay.internal')]);
    // A user without a password signs in with nothing either.
    expect(mailSignInProblems({ ...production, smtpUrl: 'smtp://quipu@Mail.Example:587' })).toEqual([NO_SIGN_IN('mail.example')]);
    expect(mailSignInProblems({ ...production, smtpUrl: 'smtp://10.0.0.5:25' })).toEqual([NO_SIGN_IN('10.0.0.5')]);
  });

  it("takes a token, no sign-in to this machine, no mail server, the operator's word, and anything in developer mode", () => {
    expect(mailSignInProblems({ ...production, smtpUrl: 'smtp://quipu@mail.example:587', smtpOauth2TokenFile: '/run/secrets/smtp-token' })).toEqual([]);
    for (const url of ['smtp://127.0.0.1:25', 'smtp://localhost:25', 'smtp://LOCALHOST:2525', 'smtp://[::1]:25', 'smtp://127.0.0.53:25'])
      expect(mailSignInProblems({ ...production, smtpUrl: url }), url).toEqual([]);
    expect(mailSignInProblems({ ...production, smtpUrl: undefined })).toEqual([]);
    expect(mailSignInProblems({ ...production, smtpUrl: WITH_PASSWORD, smtpCredentialsAccepted: true })).toEqual([]);
    expect(mailSignInProblems({ ...production, smtpUrl: 'smtp://relay.internal:25', smtpCredentialsAccepted: true })).toEqual([]);
    expect(mailSignInProblems({ ...production, smtpUrl: WITH_PASSWORD, sandbox: true })).toEqual([]);
  });
});

describe('SMTP_OAUTH2_TOKEN_FILE at start', () => {
  const tokenFile = secretFileSetting('SMTP_OAUTH2_TOKEN', TOKEN);

  it('reads the setting, with the URL naming the user alone', () => {
    const config = loadConfig({ SMTP_URL: 'smtp://quipu%40tienda.example@mail.example:587', ...tokenFile });
    expect(config).toMatchObject({ smtpUrl: 'smtp://quipu%40tienda.example@mail.example:587', smtpOauth2TokenFile: tokenFile.SMTP_OAUTH2_TOKEN_FILE });
  });

  it('is a configuration error without a mail server URL, with a password beside it, or with no user', () => {
    const needsUrl = new ConfigError(
      'SMTP_OAUTH2_TOKEN_FILE needs SMTP_URL (or SMTP_URL_FILE) naming the mail server and the user the token signs in as, such as smtp://quipu@mail.example:587',
    );
    expect(() => loadConfig({ ...tokenFile })).toThrow(needsUrl);
    expect(() => loadConfig({ ...tokenFile, ...secretFileSetting('SMTP_URL', '') })).toThrow(needsUrl);
    expect(() => loadConfig({ ...tokenFile, SMTP_URL: WITH_PASSWORD })).toThrow(
      new ConfigError(
        'SMTP_URL must hold no password with SMTP_OAUTH2_TOKEN_FILE, whose token signs in: the user alone, such as smtp://quipu@mail.example:587',
      ),
    );
    for (const url of ['smtp://mail.example:587', 'smtp://@mail.example:587', 'smtp://:@mail.example:587'])
      expect(() => loadConfig({ ...tokenFile, SMTP_URL: url }), url).toThrow(
        new ConfigError('SMTP_URL must name the user the token of SMTP_OAUTH2_TOKEN_FILE signs in as, such as smtp://quipu@mail.example:587'),
      );
  });
});

describe('a production installation', () => {
  const processes = withServerProcesses();
  const production = (settings: Record<string, string>) => ({
    ...PRODUCTION_SETTINGS,
    DATABASE_URL: processes.database.url,
    DATA_DIR: processes.database.dataDir,
    LOG_LEVEL: 'info',
    ...settings,
  });

  /** The one line `quipu <command>` refuses to start with. */
  async function refusal(command: string, settings: Record<string, string>): Promise<string> {
    const result = await quipu([command], production(settings));
    expect(result.code).toBe(2);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    return lines[0]!;
  }

  /** `quipu serve` with `settings` answers its health check. */
  async function serves(settings: Record<string, string>): Promise<void> {
    const server = await serveOnFreePort(production(settings), processes.started);
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
    await server.stop();
  }

  describe.each(['serve', 'worker'])('quipu %s', (command) => {
    it("refuses a mail server URL that holds a password, naming the token file and the operator's word, never the password", async () => {
      const line = await refusal(command, secretFileSetting('SMTP_URL', WITH_PASSWORD));
      expect(line).toBe(`quipu: refusing to start: SANDBOX=false needs ${PASSWORD}`);
      expect(line).not.toContain(MAIL_PASSWORD);
    });

    it('refuses a mail server on another machine without a sign-in', async () => {
      expect(await refusal(command, { SMTP_URL: 'smtp://relay.example:25' })).toBe(
        `quipu: refusing to start: SANDBOX=false needs ${NO_SIGN_IN('relay.example')}`,
      );
    });

    it('refuses a token file beside a password, in one line', async () => {
      expect(await refusal(command, { ...secretFileSetting('SMTP_URL', WITH_PASSWORD), ...secretFileSetting('SMTP_OAUTH2_TOKEN', TOKEN) })).toBe(
        'quipu: refusing to start: SMTP_URL must hold no password with SMTP_OAUTH2_TOKEN_FILE, whose token signs in: the user alone, such as smtp://quipu@mail.example:587',
      );
    });
  });

  it('starts with a password when the operator says SMTP_CREDENTIALS_ACCEPTED=true', async () => {
    await serves({ ...secretFileSetting('SMTP_URL', WITH_PASSWORD), SMTP_CREDENTIALS_ACCEPTED: 'true' });
  }, 90_000);

  it('starts its server and its worker with an OAuth 2.0 token file', async () => {
    const settings = { SMTP_URL: 'smtps://quipu@mail.example:465', ...secretFileSetting('SMTP_OAUTH2_TOKEN', TOKEN) };
    await serves(settings);
    const worker = startServerProcess(production(settings), ['worker']);
    processes.started.push(worker);
    await worker.waitFor('background jobs started');
  }, 90_000);

  it('starts with no sign-in to a mail server on this machine', async () => {
    await serves({ SMTP_URL: 'smtp://127.0.0.1:25' });
  }, 90_000);
});

describe('a sandbox installation', () => {
  const processes = withServerProcesses();

  it('starts with a password in the mail server URL', async () => {
    const env = { DATABASE_URL: processes.database.url, DATA_DIR: processes.database.dataDir, SMTP_URL: WITH_PASSWORD };
    const server = await serveOnFreePort(env, processes.started);
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
  }, 90_000);
});
