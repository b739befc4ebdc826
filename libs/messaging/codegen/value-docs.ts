/**
 * The `doc` of the Avro fields whose closed list grows with one of Settle's extension points
 * (today one: the providers, docs/architecture.md, "How to add"), written from the domain's list
 * so that adding a provider edits no schema by hand. Such a doc is prose, then one generated
 * sentence, `One of: paystack, stripe, flutterwave, mpesa.`, which a consumer in another language
 * reads instead of guessing the values (the fields stay Avro `string`s on the wire: changing a
 * registered field to an `enum` would break BACKWARD compatibility).
 *
 * `npm run contracts:generate` rewrites the schema files through
 * `libs/messaging/test/schema-docs.unit.spec.ts` (`--update`), which fails without it when a
 * committed schema's generated sentence is not the domain's list; only the sentence changes, the
 * file's own layout is kept.
 */
import { LITERAL_FIELDS, type SchemaFile } from './generate-contracts.js';

/** The closed lists whose values are written into the fields' docs, with their values in order. */
export type GeneratedValueDocs = Readonly<Record<'provider', readonly string[]>>;

/** The generated sentence: what follows the prose in a generated doc. */
const SENTENCE = /\s*One of: [^.]*\.$/;

interface Field {
  readonly name: string;
  readonly type: unknown;
  readonly doc?: string;
}

interface Record_ {
  readonly name: string;
  readonly fields: readonly Field[];
}

/** Every record of a schema, the top one and the named ones nested in its fields' types. */
function recordsOf(record: Record_, into: Record_[] = []): Record_[] {
  into.push(record);
  for (const field of record.fields) {
    const types: readonly unknown[] = Array.isArray(field.type) ? (field.type as readonly unknown[]) : [field.type];
    for (const type of types) {
      const nested = (type as { type?: string; items?: unknown } | null)?.type === 'array' ? (type as { items: unknown }).items : type;
      if ((nested as { type?: string } | null)?.type === 'record') recordsOf(nested as Record_, into);
    }
  }
  return into;
}

/**
 * A field's doc with its generated sentence: the prose (a previous sentence removed), then
 * `One of: <values, in the domain's order>.`
 */
export function valueDoc(doc: string, values: readonly string[]): string {
  const prose = doc.replace(SENTENCE, '').trim();
  return `${prose}${prose ? ' ' : ''}One of: ${values.join(', ')}.`;
}

/**
 * The schema files with the docs of their generated closed-list fields rewritten; a file with
 * nothing to change is returned as it was, byte for byte.
 *
 * @throws Error when a field to write has no `doc` in the file as laid out (the prose is the
 *   author's: the generator writes only the sentence after it).
 */
export function withValueDocs(files: readonly SchemaFile[], values: GeneratedValueDocs): SchemaFile[] {
  return files.map((file) => {
    let text = file.text;
    for (const record of recordsOf(JSON.parse(file.text) as Record_)) {
      for (const [name, set] of Object.entries(LITERAL_FIELDS[record.name] ?? {})) {
        if (!(set in values)) continue;
        const field = record.fields.find((f) => f.name === name);
        if (field?.doc === undefined) throw new Error(`${file.file}: ${record.name}.${name} needs a doc, whose last sentence is generated`);
        const doc = valueDoc(field.doc, values[set as keyof GeneratedValueDocs]);
        if (doc !== field.doc) text = replaceDoc(text, name, field.doc, doc, `${file.file}: ${record.name}.${name}`);
      }
    }
    return text === file.text ? file : { file: file.file, text };
  });
}

/** Replaces the doc that follows `"name": "<name>"` (before the next field's name) in the file's own layout. */
function replaceDoc(text: string, name: string, from: string, to: string, where: string): string {
  const names = [...text.matchAll(/"name"\s*:\s*"([^"]*)"/g)];
  for (const [i, match] of names.entries()) {
    if (match[1] !== name) continue;
    const start = match.index + match[0].length;
    const end = names[i + 1]?.index ?? text.length;
    const docAt = text.slice(start, end).indexOf(`"doc": ${JSON.stringify(from)}`);
    if (docAt < 0) continue;
    const at = start + docAt + '"doc": '.length;
    return `${text.slice(0, at)}${JSON.stringify(to)}${text.slice(at + JSON.stringify(from).length)}`;
  }
  throw new Error(`${where}: its doc is not written as "doc": "…" right after its name`);
}
