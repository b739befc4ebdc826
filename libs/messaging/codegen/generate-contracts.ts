/**
 * Generates `libs/messaging/src/contracts.generated.ts`, the TypeScript types of the Kafka
 * contracts, from the Avro schemas `libs/messaging/schemas/*.avsc` (the source of truth), so
 * the types cannot drift from what the registry holds: `npm run contracts:generate` after a
 * schema change, and the unit test `libs/messaging/test/contracts.generated.unit.spec.ts`
 * fails when the committed file is not what this generator makes.
 *
 * Avro `string` fields whose values are a closed list (states, verdicts, triggers, providers)
 * stay `string` on the wire (the registered schemas are unchanged); {@link LITERAL_FIELDS}
 * names them, the generated types use the literal union, and the generated
 * `CONTRACT_LITERALS` lets the codec refuse an unknown value at decode time (a DecodeError,
 * so a dead-letter record). Avro `enum`s become literal unions of their symbols.
 *
 * Self-contained (Node's type stripping runs it as it is: `node libs/messaging/codegen/generate-contracts.ts`).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';

/** A literal union a string field is checked against: its type and the list of its values. */
interface LiteralSet {
  /** Name of the TypeScript type (a literal union). */
  readonly type: string;
  /** Name of the `readonly` array of its values. */
  readonly values: string;
  /** Module both are imported from. */
  readonly from: string;
}

const DOMAIN = '@settle/domain';
const LITERALS = {
  provider: { type: 'ProviderName', values: 'PROVIDERS', from: DOMAIN },
  trigger: { type: 'VerificationTrigger', values: 'VERIFICATION_TRIGGERS', from: DOMAIN },
  verdict: { type: 'VerdictKind', values: 'VERDICT_KINDS', from: DOMAIN },
  status: { type: 'TransactionStatus', values: 'TRANSACTION_STATUSES', from: DOMAIN },
  entitlementStatus: { type: 'EntitlementStatus', values: 'ENTITLEMENT_STATUSES', from: DOMAIN },
  consensusCheck: { type: 'ConsensusCheckName', values: 'CONSENSUS_CHECK_NAMES', from: DOMAIN },
  entitlementEvent: { type: 'EntitlementEventKind', values: 'ENTITLEMENT_EVENT_KINDS', from: DOMAIN },
  grantEvent: { type: 'GrantEventKind', values: 'GRANT_EVENT_KINDS', from: DOMAIN },
  accessChangeEvent: { type: 'AccessChangeEventKind', values: 'ACCESS_CHANGE_EVENT_KINDS', from: DOMAIN },
  revocationReason: { type: 'RevocationReason', values: 'REVOCATION_REASONS', from: DOMAIN },
  movementKind: { type: 'MoneyMovementKind', values: 'MONEY_MOVEMENT_KINDS', from: DOMAIN },
  moneyState: { type: 'MoneyState', values: 'MONEY_STATES', from: DOMAIN },
  moneyFact: { type: 'MoneyMovementEventType', values: 'MONEY_MOVEMENT_EVENT_TYPES', from: DOMAIN },
  mismatchResolution: { type: 'MismatchResolution', values: 'MISMATCH_RESOLUTIONS', from: DOMAIN },
  unmatchedObservation: { type: 'UnmatchedObservation', values: 'UNMATCHED_OBSERVATIONS', from: DOMAIN },
  unmatchedCloseReason: { type: 'UnmatchedCloseReason', values: 'UNMATCHED_CLOSE_REASONS', from: DOMAIN },
  reconciliationClass: { type: 'ReconciliationClass', values: 'RECONCILIATION_CLASSES', from: DOMAIN },
  exceptionClass: { type: 'ExceptionClass', values: 'RECONCILIATION_EXCEPTION_CLASSES', from: DOMAIN },
  exceptionChange: { type: 'ExceptionChange', values: 'EXCEPTION_CHANGES', from: DOMAIN },
  exceptionResolution: { type: 'ExceptionResolution', values: 'EXCEPTION_RESOLUTIONS', from: DOMAIN },
  runKind: { type: 'ReconciliationRunKind', values: 'RECONCILIATION_RUN_KINDS', from: DOMAIN },
  runStatus: { type: 'ReconciliationRunStatus', values: 'RECONCILIATION_RUN_STATUSES', from: DOMAIN },
  outcome: { type: 'ConsensusOutcome', values: 'CONSENSUS_OUTCOMES', from: './contract-values.js' },
} as const satisfies Record<string, LiteralSet>;

/**
 * The string fields of each record (named records nested in a schema included) whose values
 * are a closed list. Every entry must name an existing `string` (or nullable `string`) field:
 * the generator fails otherwise.
 */
export const LITERAL_FIELDS: Readonly<Record<string, Readonly<Record<string, keyof typeof LITERALS>>>> = {
  CheckoutRegistered: { provider: 'provider' },
  ProviderWebhookReceived: { provider: 'provider' },
  VerificationRequested: { trigger: 'trigger' },
  ConsensusResult: {
    provider: 'provider',
    trigger: 'trigger',
    verdict: 'verdict',
    outcome: 'outcome',
    state_before: 'status',
    state_after: 'status',
    entitlement_status: 'entitlementStatus',
  },
  ConsensusCheck: { check: 'consensusCheck' },
  SettlementRecorded: { provider: 'provider', outcome: 'outcome', state: 'status', entitlement_status: 'entitlementStatus' },
  EntitlementGranted: { event: 'grantEvent' },
  EntitlementAccessChanged: { event: 'accessChangeEvent', reason: 'revocationReason' },
  MoneyMovementsObserved: { provider: 'provider', trigger: 'trigger' },
  MoneyMovementObservation: { kind: 'movementKind' },
  MoneyMovementRecorded: { provider: 'provider', type: 'moneyFact', kind: 'movementKind', money_state: 'moneyState' },
  DeliveryDeadLettered: { event: 'entitlementEvent' },
  UnmatchedPaymentObserved: { provider: 'provider', observation: 'unmatchedObservation', verdict: 'verdict', close_reason: 'unmatchedCloseReason' },
  UnmatchedPaymentCloseRequested: { reason: 'unmatchedCloseReason' },
  MismatchResolutionRequested: { resolution: 'mismatchResolution' },
  SettledByOverride: { provider: 'provider' },
  ReconciliationRunRequested: { provider: 'provider' },
  ReconciliationRunRecorded: { provider: 'provider', kind: 'runKind', status: 'runStatus' },
  ReconciliationClassCount: { class: 'reconciliationClass' },
  ReconciliationExceptionObserved: { provider: 'provider', change: 'exceptionChange', class: 'exceptionClass', resolution: 'exceptionResolution' },
};

type AvroType = string | readonly AvroType[] | { readonly type: string; readonly [key: string]: unknown };

interface AvroField {
  readonly name: string;
  readonly type: AvroType;
  readonly doc?: string;
}

interface AvroRecord {
  readonly type: 'record';
  readonly name: string;
  readonly doc?: string;
  readonly fields: readonly AvroField[];
}

/** A checked field: the path to it from the record's root (`*` for every item of an array). */
interface LiteralPath {
  readonly path: readonly string[];
  readonly set: keyof typeof LITERALS;
}

/** One Avro schema file, as read. */
export interface SchemaFile {
  /** File name, `<Record>.v1.avsc`. */
  readonly file: string;
  readonly text: string;
}

const SCHEMAS_DIR = fileURLToPath(new URL('../schemas/', import.meta.url));
/** Where the generated module goes. */
export const OUTPUT_FILE = fileURLToPath(new URL('../src/contracts.generated.ts', import.meta.url));

/** Reads every `*.avsc` of `libs/messaging/schemas`, sorted by file name. */
export function readSchemaFiles(dir: string = SCHEMAS_DIR): SchemaFile[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.avsc'))
    .sort()
    .map((file) => ({ file, text: readFileSync(`${dir}${file}`, 'utf8') }));
}

function doc(text: string | undefined, indent = ''): string {
  if (!text) return '';
  return `${indent}/** ${text.replace(/\*\//g, '*\\/')} */\n`;
}

function isRecord(type: unknown): type is AvroRecord {
  return typeof type === 'object' && type !== null && !Array.isArray(type) && (type as { type?: unknown }).type === 'record';
}

/**
 * Generates the TypeScript module of the contracts from the schema files.
 *
 * @returns the module's source, formatted by Prettier with the repository's configuration.
 * @throws Error when a schema uses an Avro type the generator does not map, a file name does
 *   not match its record, or {@link LITERAL_FIELDS} names a record no schema defines or a field
 *   that is missing or not a string.
 */
export async function generateContracts(files: readonly SchemaFile[] = readSchemaFiles()): Promise<string> {
  const interfaces: string[] = [];
  const literalPaths = new Map<string, LiteralPath[]>();
  const used = new Set<keyof typeof LITERALS>();
  const records: string[] = [];
  const seenNested = new Set<string>();

  /** The TS type of an Avro type; nested records are emitted as interfaces of their own. */
  const tsType = (type: AvroType, owner: string, field: string, path: string[], paths: LiteralPath[]): string => {
    if (typeof type === 'string') {
      switch (type) {
        case 'string': {
          const set = LITERAL_FIELDS[owner]?.[field];
          if (set) {
            used.add(set);
            paths.push({ path, set });
            return LITERALS[set].type;
          }
          return 'string';
        }
        case 'int':
        case 'long':
        case 'float':
        case 'double':
          return 'number';
        case 'boolean':
          return 'boolean';
        case 'null':
          return 'null';
        default:
          throw new Error(`${owner}.${field}: unsupported Avro type ${type}`);
      }
    }
    if (Array.isArray(type)) {
      // A union: `null` last, as TypeScript code here writes `string | null`.
      const members = type.map((t: AvroType) => tsType(t, owner, field, path, paths));
      return [...members.filter((m) => m !== 'null'), ...members.filter((m) => m === 'null')].join(' | ');
    }
    const complex = type as { type: string; [key: string]: unknown };
    switch (complex.type) {
      case 'long':
      case 'int':
        return 'number';
      case 'string':
        return tsType('string', owner, field, path, paths);
      case 'array': {
        const item = tsType(complex.items as AvroType, owner, field, [...path, '*'], paths);
        return /^\w+$/.test(item) ? `${item}[]` : `Array<${item}>`;
      }
      case 'enum':
        return (complex.symbols as string[]).map((s) => `'${s}'`).join(' | ');
      case 'record': {
        const nested = complex as unknown as AvroRecord;
        emitRecord(nested, paths, path);
        return `${nested.name}V1`;
      }
      default:
        throw new Error(`${owner}.${field}: unsupported Avro type ${complex.type}`);
    }
  };

  const emitRecord = (record: AvroRecord, paths: LiteralPath[], prefix: string[]): void => {
    const refined = LITERAL_FIELDS[record.name] ?? {};
    for (const name of Object.keys(refined)) {
      const field = record.fields.find((f) => f.name === name);
      const types = field ? (Array.isArray(field.type) ? (field.type as AvroType[]) : [field.type]) : [];
      const strings = types.filter((t) => t !== 'null');
      if (!field || strings.length !== 1 || (strings[0] !== 'string' && (strings[0] as { type?: string }).type !== 'string')) {
        throw new Error(`LITERAL_FIELDS names ${record.name}.${name}, which is not a string field of the schema`);
      }
    }
    const body = record.fields.map((f) => {
      const type = tsType(f.type, record.name, f.name, [...prefix, f.name], paths);
      const logical = typeof f.type === 'object' && !Array.isArray(f.type) ? (f.type as { logicalType?: string }).logicalType : undefined;
      const note = logical === 'timestamp-millis' && !f.doc?.includes('epoch milliseconds') ? `${f.doc ? `${f.doc} ` : ''}(epoch milliseconds)` : f.doc;
      return `${doc(note, '  ')}  ${f.name}: ${type};`;
    });
    if (seenNested.has(record.name)) return;
    seenNested.add(record.name);
    interfaces.push(`${doc(record.doc)}export interface ${record.name}V1 {\n${body.join('\n')}\n}\n`);
  };

  for (const { file, text } of files) {
    const schema: unknown = JSON.parse(text);
    if (!isRecord(schema)) throw new Error(`${file}: not an Avro record`);
    if (file !== `${schema.name}.v1.avsc`) throw new Error(`${file}: holds record ${schema.name}`);
    const paths: LiteralPath[] = [];
    emitRecord(schema, paths, []);
    literalPaths.set(schema.name, paths);
    records.push(schema.name);
  }

  const unknownRecords = Object.keys(LITERAL_FIELDS).filter((name) => !seenNested.has(name));
  if (unknownRecords.length > 0) throw new Error(`LITERAL_FIELDS names records no schema defines: ${unknownRecords.join(', ')}`);

  const imports = new Map<string, string[]>();
  for (const set of [...used].sort()) {
    const { type, values, from } = LITERALS[set];
    imports.set(from, [...(imports.get(from) ?? []), values, `type ${type}`]);
  }
  const importLines = [...imports.entries()]
    .sort(([a], [b]) => Number(a.startsWith('.')) - Number(b.startsWith('.')) || a.localeCompare(b))
    .map(([from, names]) => `import { ${names.sort((a, b) => a.replace('type ', '').localeCompare(b.replace('type ', ''))).join(', ')} } from '${from}';`);

  const literalEntries = records.map((name) => {
    const paths = literalPaths.get(name) ?? [];
    const items = paths.map((p) => `{ path: [${p.path.map((s) => `'${s}'`).join(', ')}], values: ${LITERALS[p.set].values} }`);
    return `  ${name}: [${items.join(', ')}],`;
  });

  const source = `// Generated by libs/messaging/codegen/generate-contracts.ts from libs/messaging/schemas/*.avsc.
// Do not edit: change the schema and run \`npm run contracts:generate\`.
${importLines.join('\n')}

${interfaces.join('\n')}
/** Every contract by its record name. */
export interface ContractMap {
${records.map((r) => `  ${r}: ${r}V1;`).join('\n')}
}

/** A string field whose values are a closed list: its path from the record (\`*\`: every item of an array) and its values. */
export interface ContractLiteralField {
  readonly path: readonly string[];
  readonly values: readonly string[];
}

/** The closed-list string fields of every contract, checked by the codec at decode time. */
export const CONTRACT_LITERALS: { readonly [K in keyof ContractMap]: readonly ContractLiteralField[] } = {
${literalEntries.join('\n')}
};
`;
  const options = await prettier.resolveConfig(OUTPUT_FILE);
  return prettier.format(source, { ...options, filepath: OUTPUT_FILE });
}

async function main(): Promise<void> {
  writeFileSync(OUTPUT_FILE, await generateContracts());
  console.log(`wrote ${OUTPUT_FILE}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
