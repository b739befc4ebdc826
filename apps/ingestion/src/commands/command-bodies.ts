import type { RegisterCheckoutV1 } from '@settle/messaging';

/**
 * The `POST /v1/checkouts` body a `RegisterCheckout` command stands for: its fields under the
 * same names, the command's own (`event_id`, `occurred_at`, `correlation_id`) left out and a
 * customer field the Avro record holds as `null` left absent, as a JSON body leaves it. The
 * result goes through the one validation of both transports (`validateRegistration`), so the
 * same terms get the same verdict, code and field messages whichever way they came
 * (docs/api.md, "Two ways in").
 */
export function registrationBodyOf(command: RegisterCheckoutV1): Record<string, unknown> {
  const customer: Record<string, string> = {};
  if (command.customer.email !== null) customer.email = command.customer.email;
  if (command.customer.phone !== null) customer.phone = command.customer.phone;
  return {
    provider: command.provider,
    reference: command.reference,
    amount: command.amount,
    currency: command.currency,
    user_id: command.user_id,
    customer,
    entitlement: command.entitlement,
    access_period: command.access_period,
  };
}
