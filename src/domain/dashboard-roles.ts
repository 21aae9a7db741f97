// Who may do what in an account's dashboard. Three roles, as the peers' dashboards have them:
// the owner does everything; a developer works the integration (credentials, notification
// settings, resends, the test bank and the developer clock) but moves no real money; a viewer
// reads. Every state-changing dashboard route names its action, and the action's row says which
// roles may run it: a new action is a new row, checked on the server whatever the page showed.

export const DASHBOARD_ROLES = ['owner', 'developer', 'viewer'] as const;
export type DashboardRole = (typeof DASHBOARD_ROLES)[number];

const EVERYONE: readonly DashboardRole[] = DASHBOARD_ROLES;
const INTEGRATORS: readonly DashboardRole[] = ['owner', 'developer'];
const OWNERS: readonly DashboardRole[] = ['owner'];

export const DASHBOARD_ACTIONS = {
  /** Refund, confirm, delete, mark paid: they move or settle the account's money. */
  'payment.manage': OWNERS,
  /** DemoBank's answers on a payment, a mandate or a charge: test money only. */
  'demobank.decide': INTEGRATORS,
  'credentials.reveal': INTEGRATORS,
  'credentials.rotate': INTEGRATORS,
  /** Every access token of the account revoked at once. */
  'tokens.revoke': INTEGRATORS,
  'settings.update': INTEGRATORS,
  'message.resend': INTEGRATORS,
  /** An event sent once to a URL the user types: the account's signed bytes leave for anywhere public. */
  'message.send-to': INTEGRATORS,
  'notify.test': INTEGRATORS,
  'developer.clock': INTEGRATORS,
  'developer.scenario': INTEGRATORS,
  'session.end': EVERYONE,
  'password.change': EVERYONE,
  /** The account's audit log: who did what. */
  'audit.read': OWNERS,
} as const satisfies Record<string, readonly DashboardRole[]>;

export type DashboardAction = keyof typeof DASHBOARD_ACTIONS;

export function mayAct(role: DashboardRole, action: DashboardAction): boolean {
  return (DASHBOARD_ACTIONS[action] as readonly DashboardRole[]).includes(role);
}
