/** The AuditTrail contract over the in-memory ledger, read back by scanning it (StoreScanAuditLog). */
import { ChainVerifier, InMemoryLedger } from '@settle/ledger';
import { expect } from 'vitest';
import { StoreScanAuditLog } from '../src/audit/ledger-audit-trail.js';
import { auditTrailContract } from './audit-trail.contract.js';

auditTrailContract('in memory', async () => {
  const store = new InMemoryLedger();
  return {
    store,
    log: new StoreScanAuditLog(store),
    verifyChains: async () => {
      const verifier = new ChainVerifier({ checkGlobal: true });
      const events = await store.readAll(0, 10_000);
      expect(events.length).toBeGreaterThan(0);
      expect(events.map((event) => verifier.check(event)).filter((broken) => broken !== null)).toEqual([]);
    },
  };
});
