import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { RedisReceiverStore } from '../src/redis-store.js';
import { deleteKeys, redisUrl, uniquePrefix } from './support/infra.js';
import { storeContract } from './store.contract.js';

let redis: Redis;
const run = uniquePrefix('store');
let stores = 0;

beforeAll(() => {
  redis = new Redis(redisUrl);
});

afterAll(async () => {
  await deleteKeys(redis, run);
  redis.disconnect();
});

storeContract('Redis', async () => new RedisReceiverStore(redis, { keyPrefix: `${run}${stores++}:` }));
