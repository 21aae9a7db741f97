// Where Quipu's own fixtures send callbacks when no receiver is given (the demo account's
// subscription, the scenarios' runs for an account without notify_url): under `invalid.`, which
// RFC 6761 (§6.4) reserves as never resolving and asks name libraries to treat so. The sender
// refuses such a name without looking it up, so a fresh developer installation asks no DNS server
// and opens no connection for them (test/cli/offline.test.ts counts): the attempts still appear on
// the events page, failed with the reason, and are retried as any others.

/** The stand-in receiver's origin of a fixture: `https://<name>.quipu.invalid`. */
export const standInReceiver = (name: string): string => `https://${name}.quipu.invalid`;

/** Why nothing is sent to `hostname`, when it lies under `invalid.`; undefined otherwise. */
export function neverResolvesReason(hostname: string): string | undefined {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return host === 'invalid' || host.endsWith('.invalid') ? 'is under .invalid, which never resolves (RFC 6761): nothing is looked up or sent' : undefined;
}
