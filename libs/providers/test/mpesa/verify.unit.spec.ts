import { describe, expect, it } from 'vitest';
import { isMpesaTokenRejected, mpesaPassword, mpesaQueryVerdict, mpesaTimestamp, readMpesaToken, ProviderCallError } from '@settle/providers';
import { expectation } from '../fixtures.js';

/** Daraja's public sandbox shortcode and pass key (docs/provider-facts.md, M-Pesa: sandbox shortcode 174379). */
const SHORTCODE = '174379';
const PASSKEY = 'bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919';

/** An answered STK query (docs/provider-facts.md, M-Pesa: HTTP 200). */
const answered = (resultCode: string, resultDesc: string) =>
  JSON.stringify({
    ResponseCode: '0',
    ResponseDescription: 'The service request has been accepted successsfully',
    MerchantRequestID: '22205-34066-1',
    CheckoutRequestID: 'ws_CO_191220191020363925',
    ResultCode: resultCode,
    ResultDesc: resultDesc,
  });

const stillProcessing = JSON.stringify({
  requestId: 'c5c5-4d0c-a1a1-1',
  errorCode: '500.001.1001',
  errorMessage: 'The transaction is being processed',
});

describe('M-Pesa Timestamp and Password (docs/provider-facts.md, M-Pesa)', () => {
  it('Timestamp is YYYYMMDDHHmmss in Africa/Nairobi time (UTC+3, no DST), across a day and a year boundary', () => {
    expect(mpesaTimestamp(new Date('2024-01-31T21:30:05.999Z'))).toBe('20240201003005');
    expect(mpesaTimestamp(new Date('2023-12-31T21:00:00Z'))).toBe('20240101000000');
    expect(mpesaTimestamp(new Date('2019-12-19T07:20:36Z'))).toBe('20191219102036');
    expect(mpesaTimestamp(new Date('2024-07-15T20:59:59Z'))).toBe('20240715235959');
  });

  it('Password is base64(shortcode + passkey + timestamp)', () => {
    const timestamp = '20160216165627';
    const expected = Buffer.from(`${SHORTCODE}${PASSKEY}${timestamp}`, 'utf8').toString('base64');
    expect(mpesaPassword(SHORTCODE, PASSKEY, timestamp)).toBe(expected);
    // The sample published in Daraja's documentation for the same inputs.
    expect(expected).toBe('MTc0Mzc5YmZiMjc5ZjlhYTliZGJjZjE1OGU5N2RkNzFhNDY3Y2QyZTBjODkzMDU5YjEwZjc4ZTZiNzJhZGExZWQyYzkxOTIwMTYwMjE2MTY1NjI3');
    expect(Buffer.from(mpesaPassword(SHORTCODE, PASSKEY, '20240201003005'), 'base64').toString()).toBe(`${SHORTCODE}${PASSKEY}20240201003005`);
  });
});

describe('M-Pesa STK query answer to verdict (docs/provider-facts.md, M-Pesa)', () => {
  it('ResultCode 0 is cleared: reference from the answer, amount and phone from the initiation record, currency KES', () => {
    expect(mpesaQueryVerdict(200, answered('0', 'The service request is processed successfully.'), expectation())).toEqual({
      kind: 'cleared',
      observation: {
        reference: 'ws_CO_191220191020363925',
        amountMinor: 150_000,
        currency: 'KES',
        customer: { phone: '+254712345678' },
        providerTransactionId: '22205-34066-1',
        providerStatus: '0',
      },
    });
  });

  it('without an initiation record (a payment with no checkout), ResultCode 0 confirms neither amount nor phone: both listed as unconfirmed', () => {
    const verdict = mpesaQueryVerdict(200, answered('0', 'ok'), null);
    expect(verdict).toMatchObject({
      kind: 'cleared',
      observation: { reference: 'ws_CO_191220191020363925', currency: 'KES', customer: {}, unconfirmed: ['amount', 'customer'] },
    });
    expect(mpesaQueryVerdict(200, answered('0', 'ok'), expectation())).not.toHaveProperty('observation.unconfirmed');
  });

  it('the currency is KES whatever the checkout says, so a non-KES checkout fails the currency check', () => {
    const verdict = mpesaQueryVerdict(200, answered('0', 'ok'), expectation({ currency: 'USD' }));
    expect(verdict.kind === 'cleared' && verdict.observation.currency).toBe('KES');
  });

  it('the phone is passed on as registered, and no e-mail is invented', () => {
    const verdict = mpesaQueryVerdict(200, answered('0', 'ok'), expectation({ customer: { email: 'a@example.com', phone: '0712345678' } }));
    expect(verdict.kind === 'cleared' && verdict.observation.customer).toEqual({ phone: '0712345678' });
  });

  it('a numeric ResultCode is tolerated', () => {
    const body = JSON.stringify({ ...JSON.parse(answered('0', 'ok')), ResultCode: 0 });
    expect(mpesaQueryVerdict(200, body, expectation()).kind).toBe('cleared');
  });

  it.each([
    ['1', 'The balance is insufficient for the transaction.'],
    ['2001', 'The initiator information is invalid.'],
    ['1032', 'Request cancelled by user'],
    ['1037', 'DS timeout user cannot be reached'],
    ['1019', 'Transaction has expired'],
  ])('ResultCode %s is a decline, definitive for this attempt', (code, desc) => {
    expect(mpesaQueryVerdict(200, answered(code, desc), expectation())).toEqual({ kind: 'declined', providerStatus: code, reason: desc });
  });

  it.each(['17', '1001', '1025', '9999'])('ResultCode %s is transient: unreachable, state preserved', (code) => {
    expect(mpesaQueryVerdict(200, answered(code, 'transient'), expectation())).toEqual({ kind: 'unreachable', cause: `PROVIDER.MPESA_RESULT_${code}` });
  });

  it('an unknown ResultCode is unreachable', () => {
    expect(mpesaQueryVerdict(200, answered('4242', '?'), expectation())).toEqual({ kind: 'unreachable', cause: 'PROVIDER.UNKNOWN_STATUS' });
  });

  it('500.001.1001 "The transaction is being processed" is clearing; the same code with another message is not', () => {
    expect(mpesaQueryVerdict(500, stillProcessing, expectation())).toEqual({ kind: 'clearing', providerStatus: '500.001.1001' });
    const misconfigured = JSON.stringify({ requestId: 'r1', errorCode: '500.001.1001', errorMessage: 'Wrong credentials' });
    expect(mpesaQueryVerdict(500, misconfigured, expectation())).toEqual({ kind: 'unreachable', cause: 'PROVIDER.MPESA_500.001.1001' });
    const noMessage = JSON.stringify({ requestId: 'r1', errorCode: '500.001.1001' });
    expect(mpesaQueryVerdict(500, noMessage, expectation())).toEqual({ kind: 'unreachable', cause: 'PROVIDER.MPESA_500.001.1001' });
  });

  it('a rejected token (401 or 404.001.03) is AUTH_REJECTED; other errors and malformed bodies are unreachable', () => {
    const invalidToken = JSON.stringify({ requestId: 'r2', errorCode: '404.001.03', errorMessage: 'Invalid Access Token' });
    expect(mpesaQueryVerdict(404, invalidToken, expectation())).toEqual({ kind: 'unreachable', cause: 'PROVIDER.AUTH_REJECTED' });
    expect(mpesaQueryVerdict(401, '', expectation())).toEqual({ kind: 'unreachable', cause: 'PROVIDER.AUTH_REJECTED' });
    const badRequest = JSON.stringify({ requestId: 'r3', errorCode: '400.002.02', errorMessage: 'Bad Request - Invalid CheckoutRequestID' });
    expect(mpesaQueryVerdict(400, badRequest, expectation())).toEqual({ kind: 'unreachable', cause: 'PROVIDER.MPESA_400.002.02' });
    expect(mpesaQueryVerdict(500, '<html>', expectation())).toEqual({ kind: 'unreachable', cause: 'PROVIDER.UNEXPECTED_STATUS_500' });
    expect(mpesaQueryVerdict(200, '<html>', expectation())).toEqual({ kind: 'unreachable', cause: 'PROVIDER.MALFORMED_RESPONSE' });
    expect(mpesaQueryVerdict(200, JSON.stringify({ ResponseCode: '0', CheckoutRequestID: 'ws_1' }), expectation())).toEqual({
      kind: 'unreachable',
      cause: 'PROVIDER.MALFORMED_RESPONSE',
    });
  });

  it('recognises a rejected token for the one refresh', () => {
    expect(isMpesaTokenRejected({ status: 401, body: '' })).toBe(true);
    expect(isMpesaTokenRejected({ status: 404, body: JSON.stringify({ errorCode: '404.001.03', errorMessage: 'Invalid Access Token' }) })).toBe(true);
    expect(isMpesaTokenRejected({ status: 500, body: stillProcessing })).toBe(false);
    expect(isMpesaTokenRejected({ status: 200, body: answered('0', 'ok') })).toBe(false);
  });
});

describe('M-Pesa OAuth answer', () => {
  it('reads the token and its lifetime (expires_in in seconds, sent as a string)', () => {
    expect(readMpesaToken({ status: 200, body: JSON.stringify({ access_token: 'c9SQxWWhmdVRlyh0zh8gZDTkubVF', expires_in: '3599' }) })).toEqual({
      accessToken: 'c9SQxWWhmdVRlyh0zh8gZDTkubVF',
      expiresInMs: 3_599_000,
    });
  });

  it('rejected credentials and malformed answers throw non-retryable errors', () => {
    const rejected = () => readMpesaToken({ status: 400, body: JSON.stringify({ errorCode: '400.008.01', errorMessage: 'Invalid Authentication passed' }) });
    expect(rejected).toThrow(ProviderCallError);
    expect(rejected).toThrow(expect.objectContaining({ code: 'PROVIDER.AUTH_REJECTED', retryable: false }));
    expect(() => readMpesaToken({ status: 200, body: '{"expires_in":"3599"}' })).toThrow(expect.objectContaining({ code: 'PROVIDER.MALFORMED_RESPONSE' }));
    expect(() => readMpesaToken({ status: 500, body: '{}' })).toThrow(expect.objectContaining({ code: 'PROVIDER.UNEXPECTED_STATUS_500' }));
  });
});
