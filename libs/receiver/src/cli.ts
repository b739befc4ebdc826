#!/usr/bin/env node
/**
 * `settle-receiver`: the kit's command line (README, "Send yourself a signed event").
 *
 *   settle-receiver send-sample --url <endpoint> [--event subscription_started|subscription_renewed]
 *                               [--user-id <id>] [--entitlement <name>] [--expires-at <ISO 8601>]
 *
 * Sends one sample event signed as Settle signs it, and prints the answer. The secret is read from
 * `SETTLE_WEBHOOK_SECRET`, else the first of `SETTLE_WEBHOOK_SECRETS` (comma-separated), never
 * from an argument, which would stay in the shell's history. Exits 0 on a 2xx answer, 1 on any
 * other answer or error, 2 on a usage error.
 */
import { parseArgs } from 'node:util';
import { ENTITLEMENT_EVENT_KINDS, type EntitlementEvent } from './event.js';
import { sendSampleEvent } from './sample.js';

const USAGE = `usage: settle-receiver send-sample --url <endpoint> [--event ${ENTITLEMENT_EVENT_KINDS.join('|')}]
                                   [--user-id <id>] [--entitlement <name>] [--expires-at <ISO 8601>]
The endpoint's secret is read from SETTLE_WEBHOOK_SECRET, else the first of SETTLE_WEBHOOK_SECRETS.`;

function usage(message?: string): never {
  if (message) console.error(`settle-receiver: ${message}`);
  console.error(USAGE);
  process.exit(2);
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command !== 'send-sample') usage(command ? `unknown command ${command}` : undefined);
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args: rest,
      options: {
        url: { type: 'string' },
        event: { type: 'string' },
        'user-id': { type: 'string' },
        entitlement: { type: 'string' },
        'expires-at': { type: 'string' },
      },
    }));
  } catch (error) {
    usage((error as Error).message);
  }
  if (!values.url) usage('--url is required');
  const secret = process.env.SETTLE_WEBHOOK_SECRET?.trim() || process.env.SETTLE_WEBHOOK_SECRETS?.split(',')[0]?.trim();
  if (!secret) usage('set SETTLE_WEBHOOK_SECRET (or SETTLE_WEBHOOK_SECRETS) to the endpoint secret');
  if (values.event !== undefined && !(ENTITLEMENT_EVENT_KINDS as readonly string[]).includes(values.event)) {
    usage(`--event must be one of ${ENTITLEMENT_EVENT_KINDS.join(', ')}`);
  }
  const overrides: Partial<{ -readonly [K in keyof EntitlementEvent]: EntitlementEvent[K] }> = {};
  if (values.event) overrides.event = values.event as EntitlementEvent['event'];
  if (values['user-id']) overrides.user_id = values['user-id'];
  if (values.entitlement) overrides.entitlement = values.entitlement;
  if (values['expires-at']) overrides.expires_at = values['expires-at'];
  const answer = await sendSampleEvent({ url: values.url, secret, event: overrides });
  const { event_id, event, user_id, entitlement, expires_at } = answer.event;
  console.log(JSON.stringify({ sent: { event_id, event, user_id, entitlement, expires_at }, status: answer.status, answer: answer.body }));
  return answer.status >= 200 && answer.status < 300 ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`settle-receiver: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
