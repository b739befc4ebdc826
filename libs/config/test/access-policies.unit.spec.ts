/**
 * The ledger projector's `ACCESS_POLICIES` (docs/delivery.md, "Access follows the money"):
 * `loadProjectorConfig` gives `{}` when it is unset or blank, the parsed policies by entitlement
 * when it is valid JSON, and refuses invalid JSON, an unknown field or a bad value with a
 * ConfigError that names ACCESS_POLICIES (and never echoes the value).
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadProjectorConfig } from '@settle/config';

const base = {
  KAFKA_BROKERS: '127.0.0.1:19092, 127.0.0.1:19094',
  SCHEMA_REGISTRY_URL: 'http://127.0.0.1:18081/apis/ccompat/v7',
  DATABASE_URL: 'postgres://settle@127.0.0.1:5432/settle',
};

/** The ConfigError of an env, or a failure when it loads. */
function refusal(env: Record<string, string>): ConfigError {
  try {
    loadProjectorConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('ACCESS_POLICIES', () => {
  it('is {} when unset or blank: every entitlement keeps the default policy', () => {
    expect(loadProjectorConfig(base).accessPolicies).toEqual({});
    expect(loadProjectorConfig({ ...base, ACCESS_POLICIES: '' }).accessPolicies).toEqual({});
    expect(loadProjectorConfig({ ...base, ACCESS_POLICIES: '   ' }).accessPolicies).toEqual({});
  });

  it('parses the policies by entitlement, a field left out staying out (the default applies)', () => {
    const policies = {
      'pro-monthly': { partialRefund: 'revoke', disputeOpened: 'suspend' },
      team: { disputeOpened: 'suspend' },
      basic: {},
    };
    const config = loadProjectorConfig({ ...base, ACCESS_POLICIES: JSON.stringify(policies) });
    expect(config.accessPolicies).toEqual(policies);
    expect(config.accessPolicies.team).not.toHaveProperty('partialRefund');
    // The rest of the projector's configuration is unaffected.
    expect(config.ledgerStore).toEqual({ kind: 'postgres' });
    expect(loadProjectorConfig({ ...base, ACCESS_POLICIES: '{}' }).accessPolicies).toEqual({});
  });

  it.each([
    ['invalid JSON', '{"pro":{"partialRefund":"revoke"}'],
    ['not JSON at all', 'partialRefund=revoke'],
    ['an unknown field', '{"pro":{"partialRefund":"revoke","fullRefund":"keep"}}'],
    ['a bad partialRefund', '{"pro":{"partialRefund":"suspend"}}'],
    ['a bad disputeOpened', '{"pro":{"disputeOpened":"revoke"}}'],
    ['a policy that is not an object', '{"pro":"revoke"}'],
    ['an array', '[{"partialRefund":"revoke"}]'],
    ['an empty entitlement name', '{"":{"partialRefund":"revoke"}}'],
    ['JSON null', 'null'],
  ])('refuses %s with a ConfigError naming ACCESS_POLICIES', (_, value) => {
    const error = refusal({ ...base, ACCESS_POLICIES: value });
    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toMatch(/^ACCESS_POLICIES: /);
    expect(error.message).toContain('ACCESS_POLICIES');
    expect(error.message).not.toContain(value);
  });

  it('reports ACCESS_POLICIES with the other bad variables at once', () => {
    const names = refusal({ ...base, ACCESS_POLICIES: '{oops', DATABASE_POOL_SIZE: '0' }).problems.map((p) => p.split(':')[0]);
    expect(names.sort()).toEqual(['ACCESS_POLICIES', 'DATABASE_POOL_SIZE']);
  });
});
