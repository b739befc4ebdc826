/** Injection tokens of the console's API. */
export const AUTH_SERVICE = Symbol('AuthService');
export const TRANSACTIONS = Symbol('TransactionRepository');
export const QUEUES = Symbol('ReviewQueues');
export const RECONCILER = Symbol('Reconciler');
export const AUDIT_TRAIL = Symbol('AuditTrail');
export const USER_ADMIN = Symbol('UserAdminService');
export const DELIVERIES = Symbol('DeliveriesService');
export const COOKIE_SETTINGS = Symbol('CookieSettings');
export const CONSOLE_LOGGER = Symbol('ConsoleLogger');
export const OVERVIEW = Symbol('OverviewService');
export const APPROVALS = Symbol('ApprovalService');
export const UNMATCHED_CLOSER = Symbol('UnmatchedPaymentCloser');
export const REFUND_DUE_CLOSER = Symbol('MismatchRefundDueCloser');

/** Name of the session cookie (HttpOnly, SameSite=Strict, Path=/). */
export const SESSION_COOKIE = 'settle_console_session';

/**
 * `WWW-Authenticate` of the console's 401 answers (RFC 9110, section 11.6.1: every 401 names a
 * challenge). The console authenticates with the session cookie that `POST /api/v1/session`
 * sets; no registered HTTP authentication scheme describes a cookie session, so the challenge
 * names its own scheme, `Cookie`, with the realm and the cookie's name (docs/console.md,
 * "Security"). Browsers show no login prompt for a scheme they do not know, which is wanted: the
 * web app shows its sign-in page.
 */
export const CONSOLE_CHALLENGE = `Cookie realm="settle-console", cookie-name="${SESSION_COOKIE}"`;
/** Header every state-changing request carries, equal to its session's CSRF token. */
export const CSRF_HEADER = 'x-csrf-token';

/** How the session cookie is set. */
export interface CookieSettings {
  /** `Secure` flag: sent over HTTPS only (`CONSOLE_SECURE_COOKIES`). */
  secure: boolean;
}
/** Whether the web app's files are served (`true`) or `/` answers 503 `CONSOLE.WEB_NOT_BUILT`. */
export const WEB_BUILT = Symbol('WebBuilt');
