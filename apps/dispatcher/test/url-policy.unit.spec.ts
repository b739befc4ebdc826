import { describe, expect, it } from 'vitest';
import { DispatcherError } from '../src/errors.js';
import { checkEndpointUrl, isBlockedAddress, redactedUrl, safeLookup } from '../src/endpoints/url-policy.js';

const production = { allowHttp: false, allowPrivateNetworks: false };
const development = { allowHttp: true, allowPrivateNetworks: true };

function refusal(url: string, policy = production): string {
  try {
    checkEndpointUrl(url, policy);
  } catch (error) {
    expect(error).toBeInstanceOf(DispatcherError);
    expect((error as DispatcherError).code).toBe('ENDPOINT.URL_NOT_ALLOWED');
    return (error as Error).message;
  }
  throw new Error(`${url} was accepted`);
}

describe('endpoint URL policy', () => {
  it('accepts public https URLs, normalised', () => {
    expect(checkEndpointUrl('https://api.example.com/webhook/settle', production)).toBe('https://api.example.com/webhook/settle');
    expect(checkEndpointUrl('https://203.0.113.7:8443/hooks?tenant=1', production)).toBe('https://203.0.113.7:8443/hooks?tenant=1');
  });

  it.each([
    ['http://api.example.com/hook', /https/],
    ['ftp://example.com/hook', /https/],
    ['https://user:pass@example.com/hook', /credentials/],
    ['https://example.com/hook#x', /fragment/],
    ['not a url', /absolute URL/],
    ['https://localhost/hook', /loopback/],
    ['https://127.0.0.1/hook', /loopback/],
    ['https://10.1.2.3/hook', /loopback/],
    ['https://172.20.0.1/hook', /loopback/],
    ['https://192.168.1.10/hook', /loopback/],
    ['https://169.254.169.254/latest/meta-data', /loopback/],
    ['https://100.64.0.1/hook', /loopback/],
    ['https://[::1]/hook', /loopback/],
    ['https://[fd00::1]/hook', /loopback/],
    ['https://[::ffff:127.0.0.1]/hook', /loopback/],
  ])('refuses %s in production', (url, reason) => {
    expect(refusal(url)).toMatch(reason);
  });

  it('allows http and private addresses in development and test', () => {
    expect(checkEndpointUrl('http://127.0.0.1:3300/webhook/settle', development)).toBe('http://127.0.0.1:3300/webhook/settle');
    expect(refusal('ftp://127.0.0.1/hook', development)).toMatch(/http or https/);
  });

  it('classifies addresses', () => {
    expect(['8.8.8.8', '203.0.113.7', '2001:4860:4860::8888'].map(isBlockedAddress)).toEqual([false, false, false]);
    expect(['0.0.0.0', '127.0.0.53', '224.0.0.1', '255.255.255.255', 'fe80::1', '::ffff:10.0.0.1', 'nonsense'].map(isBlockedAddress)).toEqual([
      true,
      true,
      true,
      true,
      true,
      true,
      true,
    ]);
  });

  it('refuses to connect to a name that resolves only to blocked addresses', async () => {
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => safeLookup('localhost', {}, (e) => resolve(e)));
    expect(error?.code).toBe('EADDRNOTALLOWED');
  });

  it('redacts query strings in what it logs', () => {
    expect(redactedUrl('https://example.com/hook?token=abc')).toBe('https://example.com/hook?[redacted]');
    expect(redactedUrl('https://example.com/hook')).toBe('https://example.com/hook');
  });
});
