import { describe, expect, it } from 'vitest';
import { customerIdentifier, customerSubjectId, phoneDigitForms } from '@settle/domain';

describe('customer identifiers of data subjects (docs/privacy.md, "Crypto-shredding")', () => {
  it('names an email trimmed and lower case, a phone in E.164 however typed, anything else trimmed', () => {
    expect(customerIdentifier(' Carol@Example.COM ')).toBe('carol@example.com');
    expect(customerIdentifier('+254 712 345 678')).toBe('+254712345678');
    expect(customerIdentifier('254712345678')).toBe('+254712345678');
    expect(customerIdentifier(' not-a-phone ')).toBe('not-a-phone');
  });

  it('seals under the email when there is one, else the phone, else nothing', () => {
    expect(customerSubjectId({ email: 'A@B.com', phone: '+254712345678' })).toBe('a@b.com');
    expect(customerSubjectId({ email: '  ', phone: '+254 712 345 678' })).toBe('+254712345678');
    expect(customerSubjectId({ email: null, phone: undefined })).toBeNull();
  });

  it('looks a phone up in the forms providers store it in', () => {
    expect(phoneDigitForms('+2348012345678')).toEqual(['2348012345678', '08012345678']);
    expect(phoneDigitForms('+254 712 345 678')).toEqual(['254712345678', '0712345678']);
    expect(phoneDigitForms('12-34')).toEqual(['1234']);
  });
});
