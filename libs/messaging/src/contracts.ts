/**
 * Integration events: the versioned contracts on Kafka. Their types are generated from the
 * Avro schemas `libs/messaging/schemas/<Name>.v1.avsc` (the source of truth, registered in the
 * schema registry) into `contracts.generated.ts` (`npm run contracts:generate`; a unit test
 * fails when the committed file differs from what the schemas give). Domain events are never
 * published as they are.
 */
import { CONTRACT_LITERALS, type ContractMap } from './contracts.generated.js';

export * from './contracts.generated.js';
export * from './contract-values.js';

/** Record name of a contract. */
export type EventType = keyof ContractMap;

/** Every record name, in a stable order. */
export const EVENT_TYPES: readonly EventType[] = [
  'CheckoutRegistered',
  'CheckoutCompleted',
  'ProviderWebhookReceived',
  'VerificationRequested',
  'ConsensusResult',
  'SettlementRecorded',
  'EntitlementGranted',
  'DeliveryDeadLettered',
  'UnmatchedPaymentObserved',
  'UnmatchedPaymentCloseRequested',
  'ReconciliationRunRequested',
  'ReconciliationRunRecorded',
  'ReconciliationExceptionObserved',
  'ReconciliationExceptionResolveRequested',
  'MoneyMovementsObserved',
  'MoneyMovementRecorded',
  'EntitlementAccessChanged',
  'MismatchResolutionRequested',
  'SettledByOverride',
  'RegisterCheckout',
  'CompleteCheckout',
  'VerifyCheckout',
  'CheckoutCommandResult',
  'LedgerCheckpointed',
];

/** A decoded message: its record name and payload, narrowed together. */
export type TypedEvent = { [K in EventType]: { type: K; payload: ContractMap[K] } }[EventType];

/** A closed-list string field holding a value outside its list. */
export interface InvalidLiteral {
  /** Dotted path of the field (`checks.2.check`). */
  readonly path: string;
  readonly value: unknown;
}

/**
 * Finds the first closed-list string field of a decoded payload whose value is not in its
 * list (a state, verdict, trigger or provider this build does not know). Avro checked the
 * shape already; this checks what Avro keeps as a plain `string`.
 *
 * @returns `null` when every such field holds a known value.
 */
export function findInvalidLiteral(type: EventType, payload: unknown): InvalidLiteral | null {
  for (const { path, values } of CONTRACT_LITERALS[type]) {
    const invalid = check(payload, path, values, []);
    if (invalid) return invalid;
  }
  return null;
}

function check(value: unknown, path: readonly string[], values: readonly string[], at: string[]): InvalidLiteral | null {
  const [head, ...rest] = path;
  if (head === undefined) {
    return value === null || (typeof value === 'string' && values.includes(value)) ? null : { path: at.join('.'), value };
  }
  if (head === '*') {
    if (!Array.isArray(value)) return { path: at.join('.'), value };
    for (const [index, item] of (value as unknown[]).entries()) {
      const invalid = check(item, rest, values, [...at, String(index)]);
      if (invalid) return invalid;
    }
    return null;
  }
  if (typeof value !== 'object' || value === null) return { path: at.join('.'), value };
  return check((value as Record<string, unknown>)[head], rest, values, [...at, head]);
}
