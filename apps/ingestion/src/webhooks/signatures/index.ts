/**
 * Webhook authenticity checks, one module per provider, pure (node:crypto, node:net, zod; no
 * I/O). Every verifier takes the raw body bytes and a list of candidate secrets (current first,
 * then previous ones during a rotation grace period) and answers a `SignatureCheck`. A passing
 * check makes a webhook a trustworthy trigger, never a settled payment: the service still
 * verifies the transaction with the provider.
 */
export { SignatureConfigError, type HeaderValue, type SignatureCheck, type SignatureFailureReason } from './signature-check.js';
export {
  parseStripeSignatureHeader,
  signStripe,
  stripeV1Digest,
  STRIPE_DEFAULT_TOLERANCE_MS,
  STRIPE_SIGNATURE_HEADER,
  STRIPE_SIGNATURE_MAX_LENGTH,
  verifyStripeSignature,
  type StripeSignatureHeader,
  type StripeVerifyOptions,
} from './stripe-signature.js';
export {
  FLUTTERWAVE_HMAC_SCHEME,
  FLUTTERWAVE_SIGNATURE_HEADER,
  FLUTTERWAVE_VERIF_HASH_HEADER,
  FLUTTERWAVE_VERIF_HASH_MAX_LENGTH,
  flutterwaveHmac,
  signFlutterwave,
  verifyFlutterwaveHmac,
  verifyFlutterwaveVerifHash,
  verifyFlutterwaveWebhook,
  type FlutterwaveSignatureMode,
  type FlutterwaveVerifyOptions,
  type FlutterwaveWebhookHeaders,
} from './flutterwave-signature.js';
export {
  MPESA_CALLBACK_MAX_BYTES,
  MPESA_CALLBACK_TOKEN_MAX_LENGTH,
  MPESA_CHECKOUT_REQUEST_ID,
  mpesaCallbackToken,
  parseMpesaStkCallback,
  SourceAllowlist,
  verifyMpesaCallback,
  verifyMpesaCallbackToken,
  type MpesaCallbackGateCheck,
  type MpesaCallbackGateFailureReason,
  type MpesaCallbackGateOptions,
  type MpesaCallbackParse,
  type MpesaCallbackParseError,
  type MpesaCallbackRequest,
  type MpesaStkCallbackTrigger,
} from './mpesa-callback.js';
export { signPaystack, verifyPaystackSignature } from '../paystack-signature.js';
export { PAYSTACK_SIGNATURE_HEADER, verifyPaystackWebhook } from './paystack-webhook.js';
