import type { z } from 'zod';

/** A provider's variables that come together (see {@link requireTogether}). */
export interface VariableGroup {
  /** Any of these set switches the provider on... */
  readonly any: readonly string[];
  /** ...and then these are required. */
  readonly requires: readonly string[];
  /** A webhook URL refused without the secret its webhooks are signed with. */
  readonly webhook?: { readonly url: string; readonly secret: string };
}

/**
 * The rule of an optional provider's variables, as a zod refinement of its sandbox schema: all
 * of its credentials or none of them, and no webhook URL without its signing secret. Problems
 * name the variables, never their values.
 */
export function requireTogether(group: VariableGroup): (env: Record<string, unknown>, ctx: z.RefinementCtx) => void {
  return (env, ctx) => {
    const set = (name: string) => env[name] !== undefined;
    const present = group.any.filter(set);
    if (present.length === 0) return;
    for (const name of group.requires) {
      if (!set(name)) ctx.addIssue({ code: 'custom', path: [name], message: `${name} is required when ${present.join(', ')} is set` });
    }
    if (group.webhook && set(group.webhook.url) && !set(group.webhook.secret)) {
      const { url, secret } = group.webhook;
      ctx.addIssue({ code: 'custom', path: [secret], message: `${secret} is required when ${url} is set (webhooks are signed with it)` });
    }
  };
}
