import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { DispatcherError } from '../errors.js';

/** Where customer endpoints may live (configuration; production allows neither). */
export interface UrlPolicy {
  /** Plain `http:` URLs are accepted (development and test). */
  allowHttp: boolean;
  /**
   * Endpoints on loopback, private, link-local, shared, multicast or reserved addresses are
   * accepted (development and test, where the example customer backend is on 127.0.0.1).
   */
  allowPrivateNetworks: boolean;
}

/**
 * Addresses an endpoint must not resolve to in production: a registered URL (or a DNS name
 * pointed at one later) must not make the dispatcher POST to the machine itself, the private
 * network around it or a cloud metadata service, and show the answer's excerpt to an admin.
 */
const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv6');
}

/** Whether an IP address (v4, v6, or v4-mapped v6) is one endpoints may not use in production. */
export function isBlockedAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return BLOCKED.check(mapped[1]!, 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return BLOCKED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Checks an endpoint URL: absolute `https:` (or `http:` where allowed), no credentials in it
 * (they would be stored and shown in clear), no fragment, at most 2,048 characters, and, unless
 * private networks are allowed, not `localhost` nor an IP literal in a blocked range. A DNS name
 * is checked again at every connection ({@link safeLookup}), against rebinding.
 *
 * @returns the URL, normalised.
 * @throws DispatcherError `ENDPOINT.URL_NOT_ALLOWED` naming the rule.
 */
export function checkEndpointUrl(url: string, policy: UrlPolicy): string {
  const refuse = (why: string) => new DispatcherError('ENDPOINT.URL_NOT_ALLOWED', why);
  if (url.length > 2_048 || !URL.canParse(url)) throw refuse('url must be an absolute URL of at most 2048 characters');
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:' && !(policy.allowHttp && parsed.protocol === 'http:'))
    throw refuse(policy.allowHttp ? 'url must be http or https' : 'url must be https');
  if (parsed.username || parsed.password) throw refuse('url must not carry credentials');
  if (parsed.hash) throw refuse('url must not carry a fragment');
  if (!policy.allowPrivateNetworks) {
    const host = parsed.hostname.replace(/^\[|\]$/g, '');
    if (host === 'localhost' || host.endsWith('.localhost') || (isIP(host) !== 0 && isBlockedAddress(host))) {
      throw refuse('url must not point at loopback, private, link-local or reserved addresses');
    }
  }
  return parsed.toString();
}

/**
 * A DNS lookup for the delivery client that refuses blocked addresses (`EADDRNOTALLOWED`), so a
 * name that resolves, or is later re-pointed, to a private address is never connected to.
 */
export const safeLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const list = addresses;
    const allowed = list.filter((a) => !isBlockedAddress(a.address));
    if (allowed.length === 0) {
      const refused = Object.assign(new Error(`${hostname} resolves only to addresses endpoints may not use`), { code: 'EADDRNOTALLOWED' });
      return callback(refused, '', 0);
    }
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
    callback(null, allowed[0]!.address, allowed[0]!.family);
  });
};

/** A URL fit for logs and dead-letter records: its query string (which may hold a token) redacted. */
export function redactedUrl(url: string): string {
  if (!URL.canParse(url)) return '[unparseable url]';
  const parsed = new URL(url);
  if (parsed.search) parsed.search = '?[redacted]';
  return parsed.toString();
}
