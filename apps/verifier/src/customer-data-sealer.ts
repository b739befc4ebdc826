import { customerSubjectId, maskEmail, maskPhone } from '@settle/domain';
import type { Subject, SubjectKeys } from '@settle/vault';

/**
 * A payer's email and phone as they leave the verifier (docs/privacy.md, "Crypto-shredding" and
 * "Masked forms"), in the fields of `UnmatchedPaymentObserved`:
 * - `customer_email`, `customer_phone`: the values as the provider reported them, sealed under the
 *   customer's subject key (`sealed:v1:<key id>:<base64url>`, bound to the field's name); `null`
 *   when the provider reported none, or when no privacy vault is configured;
 * - `customer_email_masked`, `customer_phone_masked`: the masked forms people are shown
 *   (`c•••@example.com`, `+254•••678`); `null` when the provider reported none.
 *
 * Never the plaintext.
 */
export interface SealedCustomer {
  customer_email: string | null;
  customer_phone: string | null;
  customer_email_masked: string | null;
  customer_phone_masked: string | null;
}

/** A payer's identifiers as a provider reported them (`null`, or blank text: none). */
export interface CustomerData {
  readonly email: string | null | undefined;
  readonly phone: string | null | undefined;
}

/**
 * The verifier's port to crypto-shredding (docs/privacy.md, "Crypto-shredding"): turns the
 * identifiers a provider reported about a payer into what may leave the verifier, on Kafka and
 * from there into the immutable ledger and the read models. Both values of one payment are sealed
 * under one subject's key, the subject of {@link customerSubject}.
 */
export interface CustomerDataSealer {
  /**
   * The sealed and masked forms of a payer's identifiers; all four `null` for `null` (no answer,
   * or a payment with no customer). May store a new subject key (before the caller's commit:
   * a key kept for a record never written is harmless).
   *
   * @throws the privacy vault's and the database's errors (a transient failure: the batch is retried).
   */
  seal(customer: CustomerData | null): Promise<SealedCustomer>;
}

/**
 * The data subject a payer's identifiers are sealed under (docs/privacy.md, "Crypto-shredding":
 * an unmatched payment has no user): the customer named by `customerSubjectId` of
 * `@settle/domain`, the one rule the console proposes under and erasure and export look up by
 * (the email's identifier when the provider reported an email, else the phone's); `null` when
 * there is neither (nothing to seal).
 */
export function customerSubject(customer: CustomerData | null): Subject | null {
  const id = customer ? customerSubjectId(customer) : null;
  return id === null ? null : { kind: 'customer', id };
}

/**
 * {@link CustomerDataSealer} over the subjects' keys of the privacy vault (`openSubjectKeys`, PostgreSQL
 * in the app; an in-memory store in unit tests): the values sealed under the customer's key
 * (fields `customer_email` and `customer_phone`), beside their masked forms.
 */
export class SubjectKeysCustomerDataSealer implements CustomerDataSealer {
  constructor(private readonly keys: Pick<SubjectKeys, 'keyFor'>) {}

  /** @throws VaultError and the store's errors, as {@link SubjectKeys.keyFor} throws them. */
  async seal(customer: CustomerData | null): Promise<SealedCustomer> {
    const masked = maskedOnly(customer);
    const subject = customerSubject(customer);
    if (!subject) return masked;
    const key = await this.keys.keyFor(subject);
    const email = present(customer?.email);
    const phone = present(customer?.phone);
    return {
      ...masked,
      customer_email: email ? key.seal('customer_email', email) : null,
      customer_phone: phone ? key.seal('customer_phone', phone) : null,
    };
  }
}

/**
 * {@link CustomerDataSealer} of a verifier with no privacy vault configured (the module logs a
 * warning at boot): the masked forms only, the sealed fields `null`. The full values are lost to
 * the ledger, never written in plaintext.
 */
export class MaskingOnlyCustomerDataSealer implements CustomerDataSealer {
  async seal(customer: CustomerData | null): Promise<SealedCustomer> {
    return maskedOnly(customer);
  }
}

function maskedOnly(customer: CustomerData | null): SealedCustomer {
  const email = present(customer?.email);
  const phone = present(customer?.phone);
  return {
    customer_email: null,
    customer_phone: null,
    customer_email_masked: email ? maskEmail(email) : null,
    customer_phone_masked: phone ? maskPhone(phone) : null,
  };
}

/** The text, or `null` when it is absent or blank. */
function present(value: string | null | undefined): string | null {
  return value && value.trim() !== '' ? value : null;
}
