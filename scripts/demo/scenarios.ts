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

/** What happens to a settled payment's money at the provider, after it settled. */
export type AfterSettlementAction = 'refund' | 'reverse' | 'dispute_lost';

/**
 * A settled payment whose money goes back afterwards (docs/state-machine.md, "The money after
 * settlement"): Settle records what the provider's own objects say and revokes the grant, and the
 * customer backend's access ends equal to the ledger's (docs/delivery.md, "Access follows the money").
 */
export interface AfterSettlementScenario extends Scenario {
  action: AfterSettlementAction;
  /** The payment's money state at the end (`GET /v1/checkouts/{reference}`, `money_state`). */
  expectedMoneyState: 'refunded' | 'reversed' | 'charged_back';
}

const settled = { behaviour: {}, expectedState: 'SETTLED_CONSENSUS', expectedEntitlement: 'UNLOCKED', needsSweeper: false } as const;

/** The payments refunded, reversed or charged back after they settled; the ledger ends with the outcome and the money facts. */
export const AFTER_SETTLEMENT: readonly AfterSettlementScenario[] = [
  { ...settled, name: 'paid, then refunded', action: 'refund', expectedMoneyState: 'refunded', expectedLedgerEntries: 2 },
  // No notification: the demo's reconciliation run finds the provider showing it reversed.
  { ...settled, name: 'paid, then reversed (no notification)', action: 'reverse', expectedMoneyState: 'reversed', expectedLedgerEntries: 2 },
  { ...settled, name: 'paid, then disputed and lost', action: 'dispute_lost', expectedMoneyState: 'charged_back', expectedLedgerEntries: 3 },
];

/**
 * A lower amount paid, accepted as paid by two people (docs/state-machine.md, "Resolving a State
 * Mismatch"): an operator proposes it in the console, a different admin approves; the state stays
 * State Mismatch, the ledger adds `SettledByOverride` and the entitlement is granted and delivered.
 */
export const ACCEPTED_MISMATCH: Scenario & { expectedResolution: 'accepted_as_paid' } = {
  name: 'lower amount, accepted by two admins',
  behaviour: { outcome: 'lower_amount' },
  expectedState: 'STATE_MISMATCH',
  expectedEntitlement: 'UNLOCKED',
  expectedLedgerEntries: 2,
  needsSweeper: false,
  expectedResolution: 'accepted_as_paid',
};
