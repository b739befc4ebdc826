import type Stripe from 'stripe';

/**
 * The Stripe shapes the sandbox's answers are checked against (stripe-schema.ts generates their
 * JSON Schemas), by kind of answer: the `stripe` package's own types, at the API version they are
 * written for (`Stripe.API_VERSION`), with nothing added but what Stripe's error envelope always
 * carries.
 */
export interface SandboxStripeContract {
  /** A PaymentIntent as `GET /v1/payment_intents/:id` answers it, with or without `expand[]=latest_charge`. */
  payment_intent: Stripe.PaymentIntent;
  /** A Charge, as `expand[]=latest_charge` embeds it. */
  charge: Stripe.Charge;
  /** Stripe's error envelope: the error as the package types it, with the `type` and `message` every Stripe error has. */
  error: { error: Stripe.StripeRawError & { type: Stripe.RawErrorType; message: string } };
  /** The events the sandbox delivers. */
  event: Stripe.PaymentIntentSucceededEvent | Stripe.PaymentIntentPaymentFailedEvent;
}
