/** The AuthStore contract on PostgreSQL (schema `console`, its own migrations). */
import { createPool, migrateSchema, type Pool } from '@settle/platform';
import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase } from '@settle/testing';
import { PostgresAuthStore } from '../src/auth/postgres-auth-store.js';
import { CONSOLE_MIGRATIONS } from '../src/schema.js';
import { authStoreContract } from './auth-store.contract.js';

let pool: Pool;
let drop: () => Promise<void>;

beforeAll(async () => {
  const database = await createTestDatabase('settle_console_auth');
  drop = database.drop;
  pool = createPool(database.url, 4);
  await migrateSchema(pool, CONSOLE_MIGRATIONS);
});

afterAll(async () => {
  await pool?.end();
  await drop?.();
});

authStoreContract('PostgreSQL', async () => {
  await pool.query('TRUNCATE console.users, console.sessions, console.login_failures CASCADE');
  return {
    store: new PostgresAuthStore(pool),
    disable: async (email) => {
      await pool.query('UPDATE console.users SET disabled = true WHERE email = $1', [email]);
    },
  };
});
