/** The AuditTrail contract over the in-memory ledger, read back by scanning it (StoreScanAuditLog); a transaction's timeline entries of admin actions. */
import { randomUUID } from 'node:crypto';
import { adminActionStream, ChainVerifier, InMemoryLedger } from '@settle/ledger';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { LedgerAuditTrail, StoreScanAuditLog } from '../src/audit/ledger-audit-trail.js';
import { ConsoleError } from '../src/errors.js';
import { adminTimelineEntries } from '../src/transactions/timeline.js';
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

describe("a transaction's timeline entries of admin actions", () => {
  it('gives one entry per request with its actor and outcome, none for an unknown outcome, and skips malformed events', async () => {
    const store = new InMemoryLedger();
    const trail = new LedgerAuditTrail(store, new StoreScanAuditLog(store), pino({ level: 'silent' }));
    const request = {
      actor: { email: 'ops@example.com', role: 'operator' as const },
      action: 'transaction.reconcile' as const,
      target: { kind: 'transaction' as const, id: 'REF-1' },
    };
    await trail.run(request, async () => 'ok');
    await expect(trail.run(request, () => Promise.reject(new ConsoleError('CONSOLE.INGESTION_UNAVAILABLE', 'down')))).rejects.toThrow('down');
    await store.append(
      adminActionStream('transaction', 'REF-1'),
      [{ eventId: randomUUID(), type: 'AdminActionRequested', data: { nonsense: true }, metadata: { correlationId: 'c', causationId: 'c' } }],
      'any',
    );
    const entries = adminTimelineEntries(await store.readStream(adminActionStream('transaction', 'REF-1')));
    expect(entries.map((e) => [e.type, e.detail, e.actor, e.adminAction?.outcome, e.adminAction?.errorCode])).toEqual([
      [
        'AdminActionRequested',
        'Manual reconciliation requested by ops@example.com (operator)',
        { email: 'ops@example.com', role: 'operator' },
        'succeeded',
        null,
      ],
      [
        'AdminActionRequested',
        'Manual reconciliation requested by ops@example.com (operator)',
        { email: 'ops@example.com', role: 'operator' },
        'failed',
        'CONSOLE.INGESTION_UNAVAILABLE',
      ],
    ]);
    expect(entries[0]!.position).toBeLessThan(entries[1]!.position);
  });
});
