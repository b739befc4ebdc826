import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { isPermanentError } from '@settle/domain';
import { describe, expect, it } from 'vitest';
import { AvroCodec, DecodeError, HEADERS, SchemaRegistryUnavailableError, topicNames } from '@settle/messaging';

/** A registry whose schema look-up fails with `error`; decoding itself would succeed. */
function registryFailing(error: Error): SchemaRegistry {
  const registry = {
    getSchema: () => Promise.reject(error),
    decode: () => Promise.resolve({}),
  };
  return registry as unknown as SchemaRegistry;
}

/** A record in the Confluent wire format: magic byte 0, schema id 7, an Avro body. */
const record = Buffer.concat([Buffer.from([0, 0, 0, 0, 7]), Buffer.from([2, 0x61])]);
const headers = { [HEADERS.eventType]: Buffer.from('SettlementRecorded') };

describe('AvroCodec and an unavailable schema registry', () => {
  it('a registry that cannot be reached is a transient failure: the record is retried, never dead-lettered', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:18081'), { status: 400 });
    const codec = new AvroCodec(registryFailing(refused), topicNames('t'));
    const error: unknown = await codec.decode(record, headers).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaRegistryUnavailableError);
    expect(error).toMatchObject({ code: 'MESSAGE.REGISTRY_UNAVAILABLE', schemaId: 7 });
    expect(isPermanentError(error)).toBe(false);
  });

  it('a registry answering 404 for the id is permanent: the record goes to the dead-letter topic', async () => {
    const codec = new AvroCodec(registryFailing(Object.assign(new Error('Schema 7 not found'), { status: 404 })), topicNames('t'));
    const error: unknown = await codec.decode(record, headers).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DecodeError);
    expect(error).toMatchObject({ code: 'MESSAGE.UNKNOWN_SCHEMA' });
    expect(isPermanentError(error)).toBe(true);
  });

  it('a value without the magic byte is undecodable without asking the registry', async () => {
    const codec = new AvroCodec(registryFailing(new Error('must not be asked')), topicNames('t'));
    await expect(codec.decode(Buffer.from([1, 0, 0, 0, 7, 2]), headers)).rejects.toMatchObject({ code: 'MESSAGE.UNDECODABLE' });
  });
});
