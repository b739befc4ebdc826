import type { SandboxBehaviour } from '../ops/clients.js';

/** One sandbox outcome and what Settle must make of it (docs/spec.md, sections 3 and 7). */
export interface Scenario {
  name: string;
  behaviour: SandboxBehaviour;
  expectedState: 'SETTLED_CONSENSUS' | 'FAILED_DECLINED' | 'STATE_MISMATCH';
  expectedEntitlement: 'UNLOCKED' | 'LOCKED';
  /** Ledger entries the transaction's stream must end with. */
  expectedLedgerEntries: number;
  /** True when only the sweeper can recover it (no usable webhook ever arrives). */
  needsSweeper: boolean;
}

/** Every sandbox outcome the walking skeleton covers. */
export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'paid, webhook delivered',
    behaviour: {},
    expectedState: 'SETTLED_CONSENSUS',
    expectedEntitlement: 'UNLOCKED',
    expectedLedgerEntries: 1,
    needsSweeper: false,
  },
  {
    name: 'paid, webhook dropped',
    behaviour: { webhook: 'drop' },
    expectedState: 'SETTLED_CONSENSUS',
    expectedEntitlement: 'UNLOCKED',
    expectedLedgerEntries: 1,
    needsSweeper: true,
  },
  {
    name: 'paid, webhook delayed 3 s',
    behaviour: { webhook: 'delay', webhook_delay_ms: 3_000 },
    expectedState: 'SETTLED_CONSENSUS',
    expectedEntitlement: 'UNLOCKED',
    expectedLedgerEntries: 1,
    needsSweeper: false,
  },
  {
    name: 'paid, webhook duplicated',
    behaviour: { webhook: 'duplicate' },
    expectedState: 'SETTLED_CONSENSUS',
    expectedEntitlement: 'UNLOCKED',
    expectedLedgerEntries: 1,
    needsSweeper: false,
  },
  {
    name: 'paid, webhook spoofed',
    behaviour: { webhook: 'spoof' },
    expectedState: 'SETTLED_CONSENSUS',
    expectedEntitlement: 'UNLOCKED',
    expectedLedgerEntries: 1,
    needsSweeper: false,
  },
  {
    name: 'paid, provider 502 twice',
    behaviour: { failures: { mode: '502', times: 2 } },
    expectedState: 'SETTLED_CONSENSUS',
    expectedEntitlement: 'UNLOCKED',
    expectedLedgerEntries: 1,
    needsSweeper: false,
  },
  {
    name: 'paid, provider 504 twice',
    behaviour: { failures: { mode: '504', times: 2 } },
    expectedState: 'SETTLED_CONSENSUS',
    expectedEntitlement: 'UNLOCKED',
    expectedLedgerEntries: 1,
    needsSweeper: false,
  },
  {
    name: 'paid, provider times out once',
    behaviour: { failures: { mode: 'timeout', times: 1 } },
    expectedState: 'SETTLED_CONSENSUS',
    expectedEntitlement: 'UNLOCKED',
    expectedLedgerEntries: 1,
    needsSweeper: false,
  },
  {
    name: 'clearing, then cleared',
    behaviour: { outcome: 'clearing_then_success', clearing_checks: 1 },
    expectedState: 'SETTLED_CONSENSUS',
    expectedEntitlement: 'UNLOCKED',
    expectedLedgerEntries: 2,
    needsSweeper: true,
  },
  {
    name: 'declined',
    behaviour: { outcome: 'declined' },
    expectedState: 'FAILED_DECLINED',
    expectedEntitlement: 'LOCKED',
    expectedLedgerEntries: 1,
    needsSweeper: true,
  },
  {
    name: 'lower amount paid',
    behaviour: { outcome: 'lower_amount' },
    expectedState: 'STATE_MISMATCH',
    expectedEntitlement: 'LOCKED',
    expectedLedgerEntries: 1,
    needsSweeper: false,
  },
  {
    name: 'other currency paid',
    behaviour: { outcome: 'other_currency' },
    expectedState: 'STATE_MISMATCH',
    expectedEntitlement: 'LOCKED',
    expectedLedgerEntries: 1,
    needsSweeper: false,
  },
  {
    name: 'paid as another customer',
    behaviour: { outcome: 'other_customer' },
    expectedState: 'STATE_MISMATCH',
    expectedEntitlement: 'LOCKED',
    expectedLedgerEntries: 1,
    needsSweeper: false,
  },
];

/**
 * Paid twice: a user pays twice for the same entitlement within seconds (a double click, a retry
 * after a time-out). Both payments are real and settle; the second is flagged as a possible
 * duplicate charge at once (docs/reconciliation.md), for an operator to refund.
 */
export const PAID_TWICE: Scenario = {
  name: 'paid twice (same user, same entitlement)',
  behaviour: {},
  expectedState: 'SETTLED_CONSENSUS',
  expectedEntitlement: 'UNLOCKED',
  expectedLedgerEntries: 1,
  needsSweeper: false,
};
