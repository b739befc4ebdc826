import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ACCESS_CHANGE_EVENT_KINDS,
  CONSENSUS_CHECK_NAMES,
  ENTITLEMENT_EVENT_KINDS,
  GRANT_EVENT_KINDS,
  MONEY_MOVEMENT_EVENT_TYPES,
  MONEY_MOVEMENT_KINDS,
  MISMATCH_RESOLUTIONS,
  MONEY_STATES,
  REVOCATION_REASONS,
  UNMATCHED_OBSERVATIONS,
  UNMATCHED_CLOSE_REASONS,
  RECONCILIATION_CLASSES,
  RECONCILIATION_EXCEPTION_CLASSES,
  EXCEPTION_CHANGES,
  EXCEPTION_RESOLUTIONS,
  RECONCILIATION_RUN_KINDS,
  RECONCILIATION_RUN_STATUSES,
  ENTITLEMENT_STATUSES,
  PROVIDERS,
  TRANSACTION_STATUSES,
  VERDICT_KINDS,
  VERIFICATION_TRIGGERS,
} from '@settle/domain';
import {
  CONSENSUS_OUTCOMES,
  CONTRACT_LITERALS,
  DecodeError,
  EVENT_TYPES,
  findInvalidLiteral,
  typedEvent,
  type ContractMap,
  type ConsensusResultV1,
} from '@settle/messaging';
import { generateContracts, LITERAL_FIELDS, OUTPUT_FILE, readSchemaFiles } from '../codegen/generate-contracts.js';

/** What {@link typedEvent} throws for a payload, `undefined` when it accepts it. */
function refusal(type: keyof ContractMap, payload: unknown): unknown {
  try {
    typedEvent(type, payload);
  } catch (error) {
    return error;
  }
  return undefined;
}

const consensusResult: ConsensusResultV1 = {
  event_id: '6f1c1b1e-3c55-4d8e-9a57-2f6f0c1f2a10',
  occurred_at: 1,
  correlation_id: 'c1',
  reference: 'ref_1',
  causation_id: 'x1',
  provider: 'paystack',
  trigger: 'webhook_received',
  verdict: 'cleared',
  provider_status: 'success',
  detail: null,
  outcome: 'SETTLED_CONSENSUS',
  ledger_event_type: 'TransactionSettled',
  ledger_expected_revision: 0,
  state_before: 'PENDING',
  state_after: 'SETTLED_CONSENSUS',
  entitlement_status: 'UNLOCKED',
  checks: [{ check: 'amount', passed: true, code: null, expected: '500000', observed: '500000' }],
  amount_minor: 500_000,
  currency: 'NGN',
  user_id: 'user-42',
  entitlement: 'pro',
  observed_amount_minor: 500_000,
  charged_amount_minor: null,
  observed_currency: 'NGN',
  provider_transaction_id: null,
  access_period: 'P1M',
};

describe('contracts generated from the Avro schemas', () => {
  it('the committed contracts.generated.ts is what the schemas give (run `npm run contracts:generate` after a schema change)', async () => {
    expect(readFileSync(OUTPUT_FILE, 'utf8')).toBe(await generateContracts());
  }, 30_000);

  it('every schema file is a contract type, and EVENT_TYPES lists each once', () => {
    const fromFiles = readSchemaFiles().map((f) => f.file.replace(/\.v1\.avsc$/, ''));
    expect([...EVENT_TYPES].sort()).toEqual(fromFiles.sort());
    expect(Object.keys(CONTRACT_LITERALS).sort()).toEqual(fromFiles.sort());
  });

  it('every closed-list field named for the generator exists as a string field of its schema', async () => {
    expect(LITERAL_FIELDS.VerificationRequested).toEqual({ trigger: 'trigger' });
    const files = readSchemaFiles().map((f) =>
      f.file === 'VerificationRequested.v1.avsc' ? { ...f, text: f.text.replace('"name": "trigger"', '"name": "trigger_renamed"') } : f,
    );
    await expect(generateContracts(files)).rejects.toThrow('VerificationRequested.trigger');
  });

  it('an outcome is a state a verification can move to, or UNCHANGED', () => {
    expect([...CONSENSUS_OUTCOMES].sort()).toEqual([...TRANSACTION_STATUSES.filter((s) => s !== 'PENDING'), 'UNCHANGED'].sort());
  });

  it('every closed-list field names all of its values in its schema doc, so that a consumer in another language need not guess them', () => {
    const values: Record<string, readonly string[]> = {
      provider: PROVIDERS,
      trigger: VERIFICATION_TRIGGERS,
      verdict: VERDICT_KINDS,
      status: TRANSACTION_STATUSES,
      entitlementStatus: ENTITLEMENT_STATUSES,
      consensusCheck: CONSENSUS_CHECK_NAMES,
      entitlementEvent: ENTITLEMENT_EVENT_KINDS,
      grantEvent: GRANT_EVENT_KINDS,
      accessChangeEvent: ACCESS_CHANGE_EVENT_KINDS,
      revocationReason: REVOCATION_REASONS,
      movementKind: MONEY_MOVEMENT_KINDS,
      moneyState: MONEY_STATES,
      moneyFact: MONEY_MOVEMENT_EVENT_TYPES,
      outcome: CONSENSUS_OUTCOMES,
      unmatchedObservation: UNMATCHED_OBSERVATIONS,
      unmatchedCloseReason: UNMATCHED_CLOSE_REASONS,
      reconciliationClass: RECONCILIATION_CLASSES,
      exceptionClass: RECONCILIATION_EXCEPTION_CLASSES,
      exceptionChange: EXCEPTION_CHANGES,
      exceptionResolution: EXCEPTION_RESOLUTIONS,
      runKind: RECONCILIATION_RUN_KINDS,
      runStatus: RECONCILIATION_RUN_STATUSES,
      mismatchResolution: MISMATCH_RESOLUTIONS,
    };
    type Field = { name: string; type: unknown; doc?: string };
    type Record_ = { name: string; fields: Field[] };
    const records = new Map<string, Record_>();
    const collect = (record: Record_) => {
      records.set(record.name, record);
      for (const field of record.fields) {
        const items = (field.type as { items?: unknown }).items;
        if (items && typeof items === 'object' && (items as { type?: string }).type === 'record') collect(items as Record_);
      }
    };
    for (const file of readSchemaFiles()) collect(JSON.parse(file.text) as Record_);
    const undocumented: string[] = [];
    for (const [record, fields] of Object.entries(LITERAL_FIELDS)) {
      for (const [name, set] of Object.entries(fields)) {
        const doc = records.get(record)?.fields.find((f) => f.name === name)?.doc ?? '';
        const missing = values[set]!.filter((value) => !new RegExp(`\\b${value}\\b`).test(doc));
        if (missing.length > 0) undocumented.push(`${record}.${name}: ${missing.join(', ')}`);
      }
    }
    expect(undocumented).toEqual([]);
  });

  it('closed-list fields named for a record no schema defines are refused', async () => {
    const files = readSchemaFiles().filter((f) => f.file !== 'DeliveryDeadLettered.v1.avsc');
    await expect(generateContracts(files)).rejects.toThrow('DeliveryDeadLettered');
  });

  it('a schema whose file name does not match its record is refused', async () => {
    const [first] = readSchemaFiles();
    await expect(generateContracts([{ file: 'Other.v1.avsc', text: first!.text }])).rejects.toThrow('holds record');
  });
});

describe('closed-list values checked at decode time', () => {
  it('a payload with known values passes as its typed event', () => {
    expect(findInvalidLiteral('ConsensusResult', consensusResult)).toBeNull();
    expect(typedEvent('ConsensusResult', consensusResult)).toEqual({ type: 'ConsensusResult', payload: consensusResult });
  });

  it.each<[string, keyof ContractMap, Record<string, unknown>, string]>([
    ['an unknown state', 'ConsensusResult', { ...consensusResult, state_after: 'SETTLED_TWICE' }, 'state_after'],
    ['an unknown verdict', 'ConsensusResult', { ...consensusResult, verdict: 'maybe' }, 'verdict'],
    [
      'an unknown check inside the array',
      'ConsensusResult',
      { ...consensusResult, checks: [...consensusResult.checks, { ...consensusResult.checks[0], check: 'colour' }] },
      'checks.1.check',
    ],
    [
      'an unknown trigger',
      'VerificationRequested',
      { event_id: 'e', occurred_at: 1, correlation_id: 'c', reference: 'r', trigger: 'no_such_trigger', requested_by: 't' },
      'trigger',
    ],
    [
      'an unknown provider',
      'ProviderWebhookReceived',
      { event_id: 'e', occurred_at: 1, correlation_id: 'c', reference: 'r', provider: 'acme', provider_event_type: 'x', body_sha256: 'a' },
      'provider',
    ],
  ])('%s is a DecodeError MESSAGE.INVALID_VALUE naming the field (dead-lettered, never handled)', (_name, type, payload, path) => {
    expect(findInvalidLiteral(type, payload)?.path).toBe(path);
    const caught = refusal(type, payload);
    expect(caught).toBeInstanceOf(DecodeError);
    expect((caught as DecodeError).code).toBe('MESSAGE.INVALID_VALUE');
    expect((caught as DecodeError).message).toContain(path);
  });

  it.each<[string, keyof ContractMap, Record<string, unknown>, string]>([
    ['an event id that is not a UUID', 'ConsensusResult', { ...consensusResult, event_id: 'not-a-uuid' }, 'event_id'],
    ['an event id that is a UUID with a suffix', 'ConsensusResult', { ...consensusResult, event_id: `${consensusResult.event_id}x` }, 'event_id'],
    [
      'another event named by an id that is not a UUID',
      'DeliveryDeadLettered',
      {
        event_id: '0b6e8f5e-54a2-4c8a-a1f5-7d1d2c3e4f50',
        occurred_at: 1,
        event: 'subscription_started',
        entitlement_event_id: 'grant-1',
      },
      'entitlement_event_id',
    ],
  ])('%s is a DecodeError MESSAGE.INVALID_VALUE (a poison message would fail every retry of its inbox query)', (_name, type, payload, field) => {
    const caught = refusal(type, payload);
    expect(caught).toBeInstanceOf(DecodeError);
    expect((caught as DecodeError).code).toBe('MESSAGE.INVALID_VALUE');
    expect((caught as DecodeError).message).toContain(`${type}.${field} is not a UUID`);
  });
});
