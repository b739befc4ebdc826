/**
 * Generates the per-provider parts of hand-written files from the providers' declarations
 * (`libs/providers/src/<provider>/definition.ts`, `apps/provider-sandbox/src/<provider>.sandbox.ts`),
 * so a new provider edits none of them: `npm run config:examples` rewrites only the blocks between
 * marker comments,
 *
 *     # BEGIN generated: <block> (npm run config:examples)
 *     ...
 *     # END generated: <block>
 *
 * (`<!-- ... -->` in Markdown), and `test/config/provider-files.unit.spec.ts` fails when a
 * committed block is not what the declarations give.
 *
 * - `scripts/local/stack.sh`: the local secrets (`add_secret` lines, from each definition's
 *   `stackVariables.generated`), and the sandbox's and the verifier's provider variables
 *   (functions `app_env` calls: each simulation's secret variables and webhook URL, each
 *   definition's base URL variable).
 * - `docker-compose.yml`: the same variables in the provider-sandbox and verifier services.
 * - README.md: the configuration table of the provider variables (every app's schema of them).
 * - docs/webhooks.md: the table of webhook paths, checks, event identities and references.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROVIDER_DEFINITIONS, webhookPath, type GeneratedSecret, type ProviderDefinition } from '@settle/providers';
import { SIMULATIONS } from '../../apps/provider-sandbox/src/simulations.js';
import type { AnyProviderSimulation } from '../../apps/provider-sandbox/src/simulation.js';
import { schemaVariables, type EnvVariable } from './env-examples.js';

/** Comment syntax of the markers: `#` lines (shell, YAML) or HTML comments (Markdown). */
export type MarkerStyle = 'hash' | 'html';

/** One generated block of a file. */
export interface GeneratedBlock {
  /** Its name in the markers (`provider secrets`). */
  readonly name: string;
  /**
   * Its lines, without the indentation: each line is indented as the BEGIN marker is (so a block
   * can sit inside a shell function or a YAML map).
   */
  render(): string[];
}

/** A file with generated blocks. */
export interface GeneratedFile {
  /** Path relative to the repository root. */
  readonly path: string;
  readonly style: MarkerStyle;
  readonly blocks: readonly GeneratedBlock[];
}

/** Where the compose services reach each other (docker-compose.yml). */
const COMPOSE_INGESTION_URL = 'http://ingestion:3000';
const COMPOSE_SANDBOX_URL = 'http://provider-sandbox:3100';

function simulationOf(definition: ProviderDefinition): AnyProviderSimulation {
  return SIMULATIONS[definition.name];
}

/** The definition's local-stack secret variables that the provider's sandbox schema reads, in the schema's order. */
function sandboxSecretVariables(definition: ProviderDefinition): EnvVariable[] {
  const generated = Object.keys(definition.stackVariables.generated);
  return schemaVariables(definition.name, [simulationOf(definition).env]).filter((v) => generated.includes(v.name));
}

/**
 * The shell text of a secret's value (`"sk_test_$(random_hex 20)"`): `random_hex` and
 * `random_base64` are scripts/local/stack.sh's.
 */
export function shellSecretValue(format: GeneratedSecret): string {
  if (!Number.isInteger(format.bytes) || format.bytes < 1) throw new Error(`a generated secret needs a positive whole number of bytes, not ${format.bytes}`);
  const literal = (text: string | undefined) => (text ?? '').replace(/[\\"$`]/g, (c) => `\\${c}`);
  return `"${literal(format.prefix)}$(random_${format.random} ${format.bytes})${literal(format.suffix)}"`;
}

/**
 * Every secret variable of the local stack, with its format, each once: the credentials' and the
 * webhook secret's variables of every definition.
 *
 * @throws Error when a definition names a variable without a format, or formats one it does not name.
 */
export function stackSecrets(definitions: readonly ProviderDefinition[] = PROVIDER_DEFINITIONS): [string, GeneratedSecret][] {
  const secrets = new Map<string, GeneratedSecret>();
  for (const d of definitions) {
    const named = new Set([...Object.values(d.stackVariables.credentials), d.stackVariables.webhookSecret]);
    const formatted = Object.keys(d.stackVariables.generated);
    for (const name of named) if (!formatted.includes(name)) throw new Error(`${d.name}: no stackVariables.generated format for ${name}`);
    for (const name of formatted)
      if (!named.has(name)) throw new Error(`${d.name}: stackVariables.generated formats ${name}, which no credential or webhook secret names`);
    for (const [name, format] of Object.entries(d.stackVariables.generated)) if (!secrets.has(name)) secrets.set(name, format);
  }
  return [...secrets];
}

/** Joins words into `echo` continuation lines of about 100 columns (each word a `"VAR=value"`). */
function echoLines(words: readonly string[]): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line && line.length + word.length > 90) {
      lines.push(`${line} \\`);
      line = `    ${word}`;
    } else {
      line = line ? `${line} ${word}` : `  echo ${word}`;
    }
  }
  lines.push(line || '  :');
  return lines;
}

function stackProviderFunctions(): string[] {
  const sandbox = PROVIDER_DEFINITIONS.flatMap((d) => {
    const simulation = simulationOf(d);
    const token = `$${d.stackVariables.webhookSecret}`;
    return [...sandboxSecretVariables(d).map((v) => `"${v.name}=$${v.name}"`), `"${simulation.webhookUrlVariable}=$1${webhookPath(d, token)}"`];
  });
  const verifier = PROVIDER_DEFINITIONS.map((d) => `"${d.verifier.baseUrlVariable}=$1"`);
  return [
    "# Each provider's variables of the sandbox (its secrets, and where its webhooks go) and of the",
    "# verifier (its base URL), from the providers' declarations; app_env prints them.",
    'provider_sandbox_env() { # provider_sandbox_env <ingestion base URL>',
    ...echoLines(sandbox),
    '}',
    'provider_verifier_env() { # provider_verifier_env <sandbox base URL>',
    ...echoLines(verifier),
    '}',
  ];
}

function composeSandboxVariables(): string[] {
  // Each provider's credentials; the webhook URL (and its secret) only for a provider that is
  // always on: an optional one's webhook URL without its credentials would stop the sandbox.
  return PROVIDER_DEFINITIONS.flatMap((d) => {
    const simulation = simulationOf(d);
    const credentials = Object.values(d.stackVariables.credentials);
    const alwaysOn = simulation.switchOn === null;
    const secrets = sandboxSecretVariables(d).filter((v) => alwaysOn || credentials.includes(v.name));
    return [
      ...secrets.map((v) => `${v.name}: \${${v.name}:${v.required ? `?set ${v.name}` : '-'}}`),
      ...(alwaysOn ? [`${simulation.webhookUrlVariable}: ${COMPOSE_INGESTION_URL}${webhookPath(d)}`] : []),
    ];
  });
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();
}

function readmeRows(): string[] {
  const rows: string[] = [];
  for (const d of PROVIDER_DEFINITIONS) {
    const apps: [string, EnvVariable[]][] = [
      ['verifier', schemaVariables(`${d.name} verifier`, [d.verifier.env])],
      ['ingestion', schemaVariables(`${d.name} ingestion`, [d.webhook.env])],
      ['sandbox', schemaVariables(`${d.name} sandbox`, [simulationOf(d).env])],
    ];
    for (const [app, variables] of apps) {
      for (const v of variables) {
        const fallback = v.required ? 'required' : v.default === undefined ? 'unset' : `\`${v.default}\``;
        rows.push(`| \`${v.name}\` | ${d.label} | ${app} | ${fallback} | ${cell(v.description)} |`);
      }
    }
  }
  return ['| Variable | Provider | App | Default | Meaning |', '|---|---|---|---|---|', ...rows];
}

function webhookRows(): string[] {
  const rows = PROVIDER_DEFINITIONS.map((d) => {
    const { check, eventIdentity, referenceNote } = d.webhook.docs;
    const reference = `\`${d.webhook.referencePath.join('.')}\`${referenceNote ? ` ${referenceNote}` : ''}`;
    return `| ${d.label} | \`${webhookPath(d)}\` | ${cell(check)} | ${cell(eventIdentity)} | ${cell(reference)} |`;
  });
  return ['| Provider | Path | Check | Event identity (de-duplication) | Reference |', '|---|---|---|---|---|', ...rows];
}

/** Every file with generated blocks, and how each block is made. */
export const PROVIDER_FILES: readonly GeneratedFile[] = [
  {
    path: 'scripts/local/stack.sh',
    style: 'hash',
    blocks: [
      { name: 'provider secrets', render: () => stackSecrets().map(([name, format]) => `add_secret ${name} ${shellSecretValue(format)}`) },
      { name: 'provider variables', render: stackProviderFunctions },
    ],
  },
  {
    path: 'docker-compose.yml',
    style: 'hash',
    blocks: [
      { name: 'provider sandbox variables', render: composeSandboxVariables },
      { name: 'provider verifier variables', render: () => PROVIDER_DEFINITIONS.map((d) => `${d.verifier.baseUrlVariable}: ${COMPOSE_SANDBOX_URL}`) },
    ],
  },
  { path: 'README.md', style: 'html', blocks: [{ name: 'provider variables', render: readmeRows }] },
  { path: 'docs/webhooks.md', style: 'html', blocks: [{ name: 'webhook schemes', render: webhookRows }] },
];

function markers(style: MarkerStyle, name: string): { begin: string; end: string } {
  const begin = `BEGIN generated: ${name} (npm run config:examples)`;
  const end = `END generated: ${name}`;
  return style === 'hash' ? { begin: `# ${begin}`, end: `# ${end}` } : { begin: `<!-- ${begin} -->`, end: `<!-- ${end} -->` };
}

/**
 * Replaces the lines between a block's markers (kept) with `lines`, each indented as the BEGIN
 * marker is.
 *
 * @throws Error when the file has not exactly one BEGIN marker followed by its END marker.
 */
export function replaceBlock(text: string, style: MarkerStyle, name: string, lines: readonly string[], label = 'file'): string {
  const { begin, end } = markers(style, name);
  const all = text.split('\n');
  const starts = all.map((line, i) => (line.trim() === begin ? i : -1)).filter((i) => i >= 0);
  const ends = all.map((line, i) => (line.trim() === end ? i : -1)).filter((i) => i >= 0);
  if (starts.length !== 1 || ends.length !== 1 || ends[0]! < starts[0]!) {
    throw new Error(`${label}: expected one "${begin}" line followed by one "${end}" line`);
  }
  const indent = /^\s*/.exec(all[starts[0]!]!)![0];
  const body = lines.map((line) => (line ? `${indent}${line}` : line));
  return [...all.slice(0, starts[0]! + 1), ...body, ...all.slice(ends[0])].join('\n');
}

/**
 * Every file with generated blocks, its text with the blocks regenerated.
 *
 * @param read - reads a file by its path relative to the repository root.
 * @throws Error when a file's markers are missing or a declaration is incomplete.
 */
export function renderProviderFiles(read: (path: string) => string): { path: string; text: string }[] {
  return PROVIDER_FILES.map((file) => ({
    path: file.path,
    text: file.blocks.reduce((text, block) => replaceBlock(text, file.style, block.name, block.render(), file.path), read(file.path)),
  }));
}

/** Rewrites the generated blocks of every file under `root` (the repository root); returns the paths. */
export function writeProviderFiles(root: string): string[] {
  return renderProviderFiles((path) => readFileSync(join(root, path), 'utf8')).map(({ path, text }) => {
    writeFileSync(join(root, path), text);
    return path;
  });
}
