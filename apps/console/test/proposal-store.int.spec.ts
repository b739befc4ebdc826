/** The ProposalStore contract on PostgreSQL (`console.proposals`, migration console/0005). */
import { createPool, migrateSchema, type Pool } from '@settle/platform';
import { createTestDatabase } from '@settle/testing';
import { afterAll, beforeAll } from 'vitest';
import { PostgresProposalStore } from '../src/approvals/proposal-store.postgres.js';
import { CONSOLE_MIGRATIONS } from '../src/schema.js';
import { proposalStoreContract } from './proposal-store.contract.js';

let pool: Pool;
let drop: () => Promise<void>;

beforeAll(async () => {
  const database = await createTestDatabase('settle_console_proposals');
  drop = database.drop;
  pool = createPool(database.url, 4);
  await migrateSchema(pool, CONSOLE_MIGRATIONS);
});

afterAll(async () => {
  await pool?.end();
  await drop?.();
});

proposalStoreContract('PostgreSQL', () => new PostgresProposalStore(pool));
