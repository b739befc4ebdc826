/**
 * Schema evolution without a registry: the BACKWARD rule as avsc resolves schemas, the codec
 * reading a record of an earlier version through this build's schema, and the compatibility
 * level the codec holds each subject to when it registers (docs/operations.md, "Schema evolution").
 */
import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import avro from 'avsc';
import { isPermanentError } from '@settle/domain';
import { describe, expect, it } from 'vitest';
import {
  AvroCodec,
  backwardIncompatibility,
  HEADERS,
  loadAvroSchema,
  topicNames,
  type CheckoutRegisteredV1,
  type CompatibilityLevel,
  type SubjectCompatibility,
} from '@settle/messaging';

const record = (fields: unknown[]) => JSON.stringify({ type: 'record', name: 'Probe', namespace: 'dev.settle.test', fields });
const base = [
  { name: 'event_id', type: 'string' },
  { name: 'amount_minor', type: 'long' },
];

describe('backwardIncompatibility (Avro schema resolution, avsc)', () => {
  it('accepts a field added with a default, and a field removed', () => {
    expect(backwardIncompatibility(record(base), record([...base, { name: 'note', type: ['null', 'string'], default: null }]))).toBeNull();
    expect(backwardIncompatibility(record(base), record(base.slice(0, 1)))).toBeNull();
  });

  it('accepts a promotion the specification allows (int to long)', () => {
    expect(backwardIncompatibility(record([{ name: 'n', type: 'int' }]), record([{ name: 'n', type: 'long' }]))).toBeNull();
  });

  it('refuses a field added without a default, naming it', () => {
    expect(backwardIncompatibility(record(base), record([...base, { name: 'note', type: 'string' }]))).toMatch(/note/);
  });

  it('refuses a type changed to one the old one does not promote to', () => {
    expect(backwardIncompatibility(record(base), record([base[0], { name: 'amount_minor', type: 'string' }]))).not.toBeNull();
  });

  it("holds between every committed schema and itself (this build's files parse and resolve)", () => {
    for (const type of ['CheckoutRegistered', 'ConsensusResult', 'EntitlementGranted'] as const) {
      expect(backwardIncompatibility(loadAvroSchema(type), loadAvroSchema(type))).toBeNull();
    }
  });
});

/** CheckoutRegistered as it was before `access_period` (the field added with a `null` default). */
const withoutAccessPeriod = (() => {
  const schema = JSON.parse(loadAvroSchema('CheckoutRegistered')) as { fields: Array<{ name: string }> };
  return { ...schema, fields: schema.fields.filter((f) => f.name !== 'access_period') };
})();

/** A registry that knows schemas by id (avsc types, as the registry client caches them). */
function registryOf(schemas: Record<number, unknown>): SchemaRegistry {
  const types = new Map(Object.entries(schemas).map(([id, schema]) => [Number(id), avro.Type.forSchema(schema as avro.Schema)]));
  return {
    getSchema: (id: number) => {
      const type = types.get(id);
      return type ? Promise.resolve(type) : Promise.reject(Object.assign(new Error(`Schema ${id} not found`), { status: 404 }));
    },
  } as unknown as SchemaRegistry;
}

/** A record in the Confluent wire format: magic byte, schema id, then `payload` encoded with `schema`. */
function wire(id: number, schema: unknown, payload: unknown): Buffer {
  const header = Buffer.alloc(5);
  header.writeInt32BE(id, 1);
  return Buffer.concat([header, avro.Type.forSchema(schema as avro.Schema).toBuffer(payload)]);
}

const headers = { [HEADERS.eventType]: Buffer.from('CheckoutRegistered') };
const current: CheckoutRegisteredV1 = {
  event_id: '5d2b8a6c-0f1e-4b7a-9c3d-2e1f0a9b8c7d',
  occurred_at: 1_764_000_000_000,
  correlation_id: 'c-1',
  reference: 'ref_evolution',
  provider: 'paystack',
  amount_minor: 500_000,
  currency: 'NGN',
  user_id: 'user-1',
  customer_email: 'ada@example.com',
  customer_phone: null,
  entitlement: 'pro-monthly',
  access_period: 'P1M',
};
const { access_period: _dropped, ...previous } = current;

describe("the codec reads every record through this build's schema", () => {
  const codec = new AvroCodec(registryOf({ 1: withoutAccessPeriod, 2: JSON.parse(loadAvroSchema('CheckoutRegistered')) }), topicNames('t'));

  it('a record of the previous version gets the default of the field it lacks: null, never undefined', async () => {
    const decoded = await codec.decode(wire(1, withoutAccessPeriod, previous), headers);
    expect(decoded).toEqual({ type: 'CheckoutRegistered', payload: { ...previous, access_period: null } });
    expect(Object.hasOwn(decoded.payload, 'access_period')).toBe(true);
  });

  it('a record of the current version reads as written', async () => {
    expect(await codec.decode(wire(2, JSON.parse(loadAvroSchema('CheckoutRegistered')), current), headers)).toEqual({
      type: 'CheckoutRegistered',
      payload: current,
    });
  });

  it('a writer this build cannot read is dead-lettered as MESSAGE.INCOMPATIBLE_SCHEMA', async () => {
    const changed = { ...withoutAccessPeriod, fields: withoutAccessPeriod.fields.map((f) => (f.name === 'amount_minor' ? { ...f, type: 'string' } : f)) };
    const incompatible = new AvroCodec(registryOf({ 3: changed }), topicNames('t'));
    const error: unknown = await incompatible.decode(wire(3, changed, { ...previous, amount_minor: 'a lot' }), headers).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'MESSAGE.INCOMPATIBLE_SCHEMA' });
    expect(isPermanentError(error)).toBe(true);
  });
});

describe('registering holds each subject to BACKWARD compatibility', () => {
  /** A registry that records registrations; subjects whose levels are kept in a map. */
  function setUp(levels: Record<string, CompatibilityLevel>) {
    const registered: Array<{ subject: string; compatibility: unknown }> = [];
    const registry = {
      register: (_schema: unknown, options: { subject: string; compatibility: unknown }) => {
        registered.push({ subject: options.subject, compatibility: options.compatibility });
        return Promise.resolve({ id: registered.length });
      },
    } as unknown as SchemaRegistry;
    const subjects: SubjectCompatibility = {
      get: (subject) => Promise.resolve(levels[subject] ?? null),
      set: (subject, level) => {
        levels[subject] = level;
        return Promise.resolve();
      },
    };
    return { codec: new AvroCodec(registry, topicNames('t'), subjects), registered, levels };
  }
  const subject = 't.transaction-events.v1-dev.settle.events.v1.CheckoutRegistered';

  it.each([
    ['a new subject', {}] as const,
    ['a subject at NONE (a registry default)', { [subject]: 'NONE' }] as const,
    ['a subject at FORWARD', { [subject]: 'FORWARD' }] as const,
  ])('%s is set to BACKWARD before the schema is registered', async (_name, start) => {
    const { codec, registered, levels } = setUp({ ...start });
    await codec.registerAll(['CheckoutRegistered']);
    expect(levels[subject]).toBe('BACKWARD');
    expect(registered).toEqual([{ subject, compatibility: 'BACKWARD' }]);
  });

  it('a stricter level an operator chose is kept', async () => {
    const { codec, registered, levels } = setUp({ [subject]: 'FULL_TRANSITIVE' });
    await codec.registerAll(['CheckoutRegistered']);
    expect(levels[subject]).toBe('FULL_TRANSITIVE');
    expect(registered).toEqual([{ subject, compatibility: 'FULL_TRANSITIVE' }]);
  });
});
