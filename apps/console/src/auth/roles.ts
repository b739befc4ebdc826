/** The console's roles, weakest first: each may do what the ones before it may (docs/console.md, "Roles"). */
export const CONSOLE_ROLES = ['viewer', 'operator', 'admin'] as const;

/** One of {@link CONSOLE_ROLES}. */
export type ConsoleRole = (typeof CONSOLE_ROLES)[number];

/** Whether a string is a console role. */
export function isConsoleRole(value: string): value is ConsoleRole {
  return (CONSOLE_ROLES as readonly string[]).includes(value);
}

/**
 * Whether `role` may do what `required` may: viewer < operator < admin.
 *
 * @returns true when `role` is `required` or stronger.
 */
export function roleAtLeast(role: ConsoleRole, required: ConsoleRole): boolean {
  return CONSOLE_ROLES.indexOf(role) >= CONSOLE_ROLES.indexOf(required);
}
