/**
 * The verifier's sealing of a payer's email and phone (docs/privacy.md, "Crypto-shredding"): one
 * subject per payer (the normalised email, else the E.164 phone), both values sealed under its
 * key, masked forms beside, never the plaintext; masked only without a privacy vault.
 */
import { describe, expect, it } from 'vitest';
import { customerIdentifier, customerSubjectId } from '@settle/domain';
import { generateKey, InMemorySubjectKeyStore, isSealedValue, MasterKeyRing, SubjectKeys } from '@settle/vault';
import { customerSubject, MaskingOnlyCustomerDataSealer, SubjectKeysCustomerDataSealer } from '../src/customer-data-sealer.js';

const subjectKeys = () => new SubjectKeys(new InMemorySubjectKeyStore(), MasterKeyRing.from([['v1', generateKey()]]), generateKey());

describe('customerSubject', () => {
  it('is the normalised email when there is one, else the E.164 phone, else none', () => {
    expect(customerSubject({ email: '  Carol@Example.COM ', phone: '+254712345678' })).toEqual({ kind: 'customer', id: 'carol@example.com' });
    expect(customerSubject({ email: null, phone: '254712345678' })).toEqual({ kind: 'customer', id: '+254712345678' });
    expect(customerSubject({ email: ' ', phone: ' +2348012345678 ' })).toEqual({ kind: 'customer', id: '+2348012345678' });
    expect(customerSubject({ email: null, phone: 'not a number' })).toEqual({ kind: 'customer', id: 'not a number' });
    expect(customerSubject({ email: null, phone: null })).toBeNull();
    expect(customerSubject(null)).toBeNull();
  });

  it('names the subject by the one rule of @settle/domain that the console and erasure name it by, whatever a provider put in the fields', () => {
    const reported = [
      { email: ' Carol@Example.COM ', phone: null },
      // A phone in the email field is the phone's subject, in E.164, as an erasure by phone names it.
      { email: '+254 712 345 678', phone: null },
      { email: 'Payer-Account', phone: '+254712345678' },
      { email: null, phone: '+254 712 345 678' },
    ];
    for (const customer of reported) {
      expect(customerSubject(customer)).toEqual({ kind: 'customer', id: customerSubjectId(customer) });
    }
    expect(customerSubject({ email: '+254 712 345 678', phone: null })).toEqual({ kind: 'customer', id: customerIdentifier('+254712345678') });
  });
});

describe('SubjectKeysCustomerDataSealer', () => {
  it("seals email and phone under the one customer's key, fields bound, masked forms beside, no plaintext", async () => {
    const keys = subjectKeys();
    const sealed = await new SubjectKeysCustomerDataSealer(keys).seal({ email: 'Carol@Example.com', phone: '+254712345678' });
    expect(sealed).toMatchObject({ customer_email_masked: 'C•••@Example.com', customer_phone_masked: '+254•••678' });
    expect(isSealedValue(sealed.customer_email!)).toBe(true);
    expect(isSealedValue(sealed.customer_phone!)).toBe(true);
    expect(JSON.stringify(sealed)).not.toMatch(/carol@|712345/i);
    const key = await keys.keyFor({ kind: 'customer', id: 'carol@example.com' });
    expect(key.reveal('customer_email', sealed.customer_email!)).toBe('Carol@Example.com');
    expect(key.reveal('customer_phone', sealed.customer_phone!)).toBe('+254712345678');
    // Bound to its field: an email moved to the phone's field does not open.
    expect(() => key.reveal('customer_phone', sealed.customer_email!)).toThrow();
    // The same customer again: the same key.
    const again = await new SubjectKeysCustomerDataSealer(keys).seal({ email: 'carol@example.com ', phone: null });
    expect(again.customer_email!.split(':')[2]).toBe(key.keyId);
    expect(again).toMatchObject({ customer_phone: null, customer_phone_masked: null });
  });

  it('seals a phone alone under the E.164 phone’s key; nothing for no customer (no key made)', async () => {
    const keys = subjectKeys();
    const sealer = new SubjectKeysCustomerDataSealer(keys);
    const sealed = await sealer.seal({ email: null, phone: '254712345678' });
    expect(sealed.customer_email).toBeNull();
    expect((await keys.keyFor({ kind: 'customer', id: '+254712345678' })).reveal('customer_phone', sealed.customer_phone!)).toBe('254712345678');
    const none = { customer_email: null, customer_phone: null, customer_email_masked: null, customer_phone_masked: null };
    let asked = 0;
    const counting = new SubjectKeysCustomerDataSealer({ keyFor: (s) => (asked++, keys.keyFor(s)) });
    expect(await counting.seal(null)).toEqual(none);
    expect(await counting.seal({ email: '', phone: undefined })).toEqual(none);
    expect(asked).toBe(0);
  });
});

describe('MaskingOnlyCustomerDataSealer (no privacy vault)', () => {
  it('gives the masked forms only, the sealed fields null', async () => {
    expect(await new MaskingOnlyCustomerDataSealer().seal({ email: 'carol@example.com', phone: '+254712345678' })).toEqual({
      customer_email: null,
      customer_phone: null,
      customer_email_masked: 'c•••@example.com',
      customer_phone_masked: '+254•••678',
    });
  });
});
