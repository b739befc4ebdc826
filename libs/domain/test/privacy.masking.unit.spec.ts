/**
 * Masked forms of customers' identifiers (docs/privacy.md, "Masked forms"): what the checks and
 * the reconciliation evidence record instead of the values. Property: no generated email or phone
 * survives in its masked form beyond what the rule keeps.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeCustomerMasked, maskEmail, maskPhone } from '../src/privacy/masking.js';

describe('masked forms', () => {
  it.each([
    ['carol@example.com', 'c•••@example.com'],
    [' Carol.Smith@Example.com ', 'C•••@Example.com'],
    ['c@example.com', '•••@example.com'],
    ['not-an-email', 'n•••'],
    ['x', '•••'],
  ])('masks the email %j as %j', (email, masked) => {
    expect(maskEmail(email)).toBe(masked);
  });

  it.each([
    ['+254712345678', '+254•••678'],
    ['+2348012345678', '+234•••678'],
    ['0712345678', '•••678'],
    ['254 712 345 678', '•••678'],
    ['12', '•••'],
  ])('masks the phone %j as %j', (phone, masked) => {
    expect(maskPhone(phone)).toBe(masked);
  });

  it('describes a customer as the checks record it', () => {
    expect(describeCustomerMasked({ email: 'carol@example.com', phone: '+254712345678' })).toBe('email:c•••@example.com phone:+254•••678');
    expect(describeCustomerMasked({})).toBe('(none)');
  });

  it('never keeps more of an email than its first character and its domain', () => {
    fc.assert(
      fc.property(fc.emailAddress(), (email) => {
        const at = email.lastIndexOf('@');
        const local = [...email.slice(0, at)];
        expect(maskEmail(email)).toBe(`${local.length > 1 ? local[0] : ''}•••${email.slice(at)}`);
      }),
    );
  });

  it('never keeps more of a phone than its country code and its last three digits', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\+[1-9]\d{7,14}$/), (phone) => {
        expect(maskPhone(phone)).toBe(`${phone.slice(0, 4)}•••${phone.slice(-3)}`);
      }),
    );
  });
});
