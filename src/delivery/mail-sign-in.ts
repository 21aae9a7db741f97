// How a production installation signs in to its mail server (ASVS 13.2.1: short-term tokens, not
// unchanging credentials). An OAuth 2.0 access token the platform refreshes (SMTP_OAUTH2_TOKEN_FILE)
// passes; a password in SMTP_URL does not, however it is handed over, since Quipu cannot tell one a
// secrets manager rotates from a fixed one; nor does no sign-in at all to another machine, whose
// relay then takes mail from whoever reaches it. The operator who accepts such a sign-in says
// SMTP_CREDENTIALS_ACCEPTED=true. Without SMTP_URL emails stay in the inbox, warned about apart.
import { type Config, holdsPassword } from '../config.js';
import { isThisMachine } from '../domain/network-address.js';

const WAYS_OUT =
  'sign in with a short-lived OAuth 2.0 token the platform refreshes (SMTP_OAUTH2_TOKEN_FILE, the user alone in SMTP_URL), or say SMTP_CREDENTIALS_ACCEPTED=true to accept it';

/** The host of an SMTP URL, in lower case; undefined when the URL does not parse (it is then no host of this machine either). */
function smtpHost(url: string): string | undefined {
  return URL.canParse(url) ? new URL(url).hostname.toLowerCase() : undefined;
}

/** What a production start lacks in how it signs in to the mail server, each completing "SANDBOX=false needs ..."; none in developer mode. */
export function mailSignInProblems(config: Pick<Config, 'sandbox' | 'smtpUrl' | 'smtpOauth2TokenFile' | 'smtpCredentialsAccepted'>): string[] {
  const { smtpUrl } = config;
  if (config.sandbox || config.smtpCredentialsAccepted || config.smtpOauth2TokenFile || smtpUrl === undefined) return [];
  if (holdsPassword(smtpUrl)) return [`a mail server sign-in that is not an unchanging password (ASVS 13.2.1): SMTP_URL holds a password; ${WAYS_OUT}`];
  const host = smtpHost(smtpUrl);
  if (host !== undefined && isThisMachine(host)) return [];
  return [`a mail server sign-in (ASVS 13.2.1): SMTP_URL reaches ${host ?? 'its host'} over the network without signing in; ${WAYS_OUT}`];
}
