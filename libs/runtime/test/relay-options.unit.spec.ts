import { describe, expect, it } from 'vitest';
import { loadProjectorConfig, loadSweeperConfig } from '@settle/config';
import { relayOptionsOf } from '@settle/runtime';

const base = {
  DATABASE_URL: 'postgres://settle@127.0.0.1:5432/settle',
  KAFKA_BROKERS: '127.0.0.1:9092',
  SCHEMA_REGISTRY_URL: 'http://127.0.0.1:8081',
};

describe('relayOptionsOf', () => {
  it("gives a declared outbox the app's OUTBOX_RELAY_LINGER_MS under what its module declares", () => {
    expect(relayOptionsOf(loadProjectorConfig(base), undefined)).toEqual({ lingerMs: 5 });
    expect(relayOptionsOf(loadSweeperConfig({ ...base, OUTBOX_RELAY_LINGER_MS: '40' }), { pollIntervalMs: 250, batchSize: 2_000 })).toEqual({
      lingerMs: 40,
      pollIntervalMs: 250,
      batchSize: 2_000,
    });
    // A module that names its own linger keeps it.
    expect(relayOptionsOf(loadSweeperConfig({ ...base, OUTBOX_RELAY_LINGER_MS: '40' }), { lingerMs: 0 })).toEqual({ lingerMs: 0 });
  });
});
