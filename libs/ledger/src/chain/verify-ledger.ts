import { SettleError, type ErrorKind } from '@settle/domain';
import { ChainVerifier, GENESIS_HASH, type ChainBreak } from './hash-chain.js';
import type { LedgerStore } from '../ports/ledger.port.js';

/** What a whole-ledger verification reads: every event in order, the head, and stored stream hashes. */
export interface VerifiableLedger extends Pick<LedgerStore, 'readAll'> {
  head(): Promise<{ position: number; globalHash: string }>;
  streamHashesAt(pairs: ReadonlyArray<{ streamId: string; revision: number }>): Promise<Map<string, { revision: number; hash: string | null }>>;
}

/** `verifyLedger` was asked to start at a position where no event is stored. */
export class LedgerPositionError extends SettleError {
  readonly code = 'LEDGER.NO_EVENT_AT_POSITION';
  readonly kind: ErrorKind = 'invalid';
  constructor(readonly position: number) {
    super(`no event at position ${position}`);
    this.name = 'LedgerPositionError';
  }
}

/** Outcome of {@link verifyLedger}. */
export interface LedgerVerification {
  /** Events checked. */
  checked: number;
  /** Position of the last event that held. */
  last: number;
  /** Global hash after the last event that held. */
  globalHash: string;
  /** The first break, `null` when both chains and the head hold. */
  broken: ChainBreak | null;
}

/**
 * Verifies both hash chains of a ledger (hash-chain.ts) from a checkpoint to the end, then the
 * head. Every stored event is checked: the head is a claim to check, not a bound to trust (a
 * head wound back must not hide later events). The head must then name the last event and its
 * global hash; appends landing during the run move it on, and the scan continues until the
 * head holds still (at most five rounds). From a checkpoint, each stream that began earlier
 * continues from the stored hash of its last event before the checkpoint.
 *
 * @param options.from - checkpoint position (0: everything); its own event is trusted.
 * @param options.onProgress - called after each page with the number of events checked.
 * @throws LedgerPositionError when `from` is not 0 and no event is stored there.
 */
export async function verifyLedger(
  ledger: VerifiableLedger,
  options: { from?: number; onProgress?: (checked: number) => void } = {},
): Promise<LedgerVerification> {
  const from = options.from ?? 0;
  let globalAfter = GENESIS_HASH;
  if (from > 0) {
    const [before] = await ledger.readAll(from - 1, 1);
    if (!before || before.position !== from) throw new LedgerPositionError(from);
    globalAfter = before.globalHash ?? '';
  }
  const verifier = new ChainVerifier({ checkGlobal: true, ...(from > 0 ? { afterPosition: from, globalAfter } : {}) });
  let broken: ChainBreak | null = null;
  let last = from;
  for (let round = 0; ; round++) {
    for (let after = last; broken === null;) {
      const page = await ledger.readAll(after, 5_000);
      if (page.length === 0) break;
      if (from > 0) {
        // Seeded: the streams whose first event here is not their first (they began before the
        // checkpoint). A stream that begins after it, its revision 0 on this page, is not.
        const starts = new Map<string, number>();
        const first = new Set<string>();
        for (const e of page) {
          if (verifier.knows(e.streamId) || first.has(e.streamId)) continue;
          first.add(e.streamId);
          if (e.revision > 0) starts.set(e.streamId, e.revision - 1);
        }
        const seeds = await ledger.streamHashesAt([...starts].map(([streamId, revision]) => ({ streamId, revision })));
        for (const [streamId, seed] of seeds) verifier.seed(streamId, seed.revision, seed.hash ?? '');
      }
      for (const event of page) {
        broken = verifier.check(event);
        if (broken) break;
        last = event.position;
      }
      after = page.at(-1)!.position;
      options.onProgress?.(verifier.checked);
    }
    if (broken) break;
    const head = await ledger.head();
    if (head.position > last && round < 5) continue; // appended meanwhile
    if (head.position !== last || head.globalHash !== verifier.head) {
      broken = {
        position: head.position,
        streamId: '',
        revision: -1,
        reason: 'HEAD_MISMATCH',
        expected: `the last event (position ${last}) with global hash ${verifier.head}`,
        found: `a head at position ${head.position} with global hash ${head.globalHash}`,
      };
    }
    break;
  }
  return { checked: verifier.checked, last, globalHash: verifier.head, broken };
}

/**
 * Verifies the per-stream hash chains of a store that keeps no global chain (KurrentDB:
 * docs/ledger.md), reading every event in the store's global order: each stream's events
 * must chain from the genesis hash in revision order. There is no head to check, and the
 * store's positions are not gapless, so only a full verification is offered.
 *
 * @param options.onProgress - called after each page with the number of events checked.
 */
export async function verifyStreamChains(
  ledger: Pick<LedgerStore, 'readAll'>,
  options: { onProgress?: (checked: number) => void } = {},
): Promise<LedgerVerification> {
  const verifier = new ChainVerifier({ checkGlobal: false });
  let last = 0;
  for (let after = 0; ;) {
    const page = await ledger.readAll(after, 5_000);
    if (page.length === 0) break;
    for (const event of page) {
      const broken = verifier.check(event);
      if (broken) return { checked: verifier.checked, last, globalHash: '', broken };
      last = event.position;
    }
    after = page.at(-1)!.position;
    options.onProgress?.(verifier.checked);
  }
  return { checked: verifier.checked, last, globalHash: '', broken: null };
}
