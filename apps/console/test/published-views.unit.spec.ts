/**
 * The console reads only what the other apps publish to it (docs/console.md, "What the console
 * reads"): every schema-qualified name in the console's SQL is its own (`console.*`) or a
 * `console_*` view that the owning schema creates in its own migrations. The SQL is every string
 * and template literal of apps/console/src, read with the TypeScript parser (comments are not
 * SQL).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The PostgreSQL schemas of Settle and the folders of the migrations that own them. */
const OWNERS: Record<string, string> = {
  ingestion: 'apps/ingestion/migrations/ingestion',
  verifier: 'apps/verifier/migrations/verifier',
  sweeper: 'apps/sweeper/migrations/sweeper',
  dispatcher: 'apps/dispatcher/migrations/dispatcher',
  ledger: 'libs/ledger/migrations/ledger',
  read_model: 'libs/ledger/migrations/read_model',
};

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Every string and template literal piece of a source file. */
function literalsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const texts: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) texts.push(node.text);
    else if (ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) texts.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return texts;
}

/** The schema-qualified names of Settle's schemas a text names (`ingestion.checkouts`). */
function qualifiedNames(text: string): string[] {
  const schemas = ['console', ...Object.keys(OWNERS)].join('|');
  return [...text.matchAll(new RegExp(`(?<![\\w./-])(${schemas})\\.([a-z_][a-z0-9_]*)\\b(?!\\.)`, 'g'))].map((m) => `${m[1]}.${m[2]}`);
}

/** The views a schema's migrations create. */
function publishedViews(schema: string): Set<string> {
  const dir = join(ROOT, OWNERS[schema]!);
  const sql = readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n');
  return new Set([...sql.matchAll(/CREATE (?:OR REPLACE )?VIEW ([a-z_]+\.console_[a-z0-9_]+)/g)].map((m) => m[1]!));
}

const consoleSql = filesUnder(join(ROOT, 'apps/console/src')).flatMap((file) =>
  literalsOf(file).flatMap((text) => qualifiedNames(text).map((name) => ({ file: file.slice(ROOT.length), name }))),
);

describe("the console's SQL", () => {
  it('names other schemas, so the check below has something to check', () => {
    expect(consoleSql.filter((n) => !n.name.startsWith('console.')).length).toBeGreaterThan(5);
  });

  it("reads another app's data only through the console_* views its owner's migrations publish", () => {
    const private_ = consoleSql.filter(({ name }) => {
      const [schema, relation] = name.split('.') as [string, string];
      if (schema === 'console') return false;
      return !relation.startsWith('console_') || !publishedViews(schema).has(name);
    });
    expect(private_).toEqual([]);
  });

  it('finds a private table named in a query', () => {
    expect(qualifiedNames('SELECT 1 FROM ingestion.checkouts c JOIN sweeper.console_watches w ON true')).toEqual([
      'ingestion.checkouts',
      'sweeper.console_watches',
    ]);
    expect(qualifiedNames('see docs/ledger.md and libs/ledger.ts')).toEqual([]);
  });
});
