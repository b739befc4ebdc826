import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { httpRequestDuration } from '@settle/http';
import { MessagingMetrics } from '@settle/messaging';
import { createMetricsRegistry } from '@settle/platform';
import { ProviderMetrics } from '@settle/providers';
import { ConsoleMetrics } from '../../apps/console/src/metrics/console.metrics.js';
import { DispatcherMetrics } from '../../apps/dispatcher/src/dispatcher.metrics.js';
import { IngestionMetrics } from '../../apps/ingestion/src/webhooks/webhook.metrics.js';
import { ProjectorMetrics } from '../../apps/ledger-projector/src/projector.metrics.js';
import { SweeperMetrics } from '../../apps/sweeper/src/sweeper.metrics.js';
import { VerifierMetrics } from '../../apps/verifier/src/verifier.metrics.js';
import { ReconciliationMetrics } from '../../apps/verifier/src/reconciliation/reconciliation.metrics.js';

interface AlertRule {
  alert?: unknown;
  expr?: unknown;
  for?: unknown;
  labels?: { severity?: unknown };
  annotations?: { summary?: unknown; description?: unknown; runbook_url?: unknown };
}

const rulesPath = fileURLToPath(new URL('../../deploy/prometheus/alerts.yml', import.meta.url));
/** promtool's rule unit tests: alerts.daily.test.yml holds those of the rules that wait a day (a coarser evaluation interval). */
const testPaths = ['alerts.test.yml', 'alerts.daily.test.yml'].map((file) => fileURLToPath(new URL(`../../deploy/prometheus/${file}`, import.meta.url)));
const operationsPath = fileURLToPath(new URL('../../docs/operations.md', import.meta.url));
const ruleFile = parse(readFileSync(rulesPath, 'utf8')) as { groups?: { name?: unknown; rules?: AlertRule[] }[] };
const rules = (ruleFile.groups ?? []).flatMap((group) => group.rules ?? []);

/** Series names Prometheus adds to a scrape itself, not registered by an app. */
const SCRAPE_SERIES = new Set(['up']);

/**
 * Each app's registry as its boot builds it: `createMetricsRegistry` (the default process
 * metrics), then what registers on it: the runtime's messaging metrics (the workers, and
 * ingestion's relay), the HTTP edge's latency (the HTTP apps), the app's own.
 */
function appRegistries(): Record<string, Registry> {
  const app = (...register: Array<(registry: Registry) => unknown>): Registry => {
    const registry = createMetricsRegistry();
    for (const add of register) add(registry);
    return registry;
  };
  const messaging = (r: Registry) => new MessagingMetrics(r);
  return {
    ingestion: app(messaging, httpRequestDuration, (r) => new IngestionMetrics(r)),
    verifier: app(
      messaging,
      (r) => new ProviderMetrics(r),
      (r) => new VerifierMetrics(r),
      (r) => new ReconciliationMetrics(r),
    ),
    'ledger-projector': app(messaging, (r) => new ProjectorMetrics(r)),
    sweeper: app(messaging, (r) => new SweeperMetrics(r)),
    dispatcher: app(messaging, httpRequestDuration, (r) => new DispatcherMetrics(r)),
    console: app(httpRequestDuration, (r) => new ConsoleMetrics(r)),
  };
}

/** Every series name the apps' registries expose, with a histogram's `_bucket`, `_sum` and `_count`. */
async function exposedSeries(): Promise<Set<string>> {
  const registries = Object.values(appRegistries());
  const names = new Set<string>();
  for (const registry of registries) {
    for (const metric of await registry.getMetricsAsJSON()) {
      names.add(metric.name);
      if (String(metric.type) === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${metric.name}${suffix}`);
    }
  }
  return names;
}

const PROMQL_WORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);

/**
 * The series names a PromQL expression selects: identifiers that are not functions, keywords,
 * label names (inside `{...}` or a grouping clause), strings or durations.
 */
function seriesNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  return [...stripped.matchAll(/(?<![\w.])([a-zA-Z_:][a-zA-Z0-9_:]*)\b(?!\s*\()/g)].map((m) => m[1]!).filter((name) => !PROMQL_WORDS.has(name.toLowerCase()));
}

/** GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

describe('deploy/prometheus/alerts.yml', () => {
  it('is a rule file of named groups, each rule an alert with an expression, a duration, a severity and its annotations', () => {
    expect(ruleFile.groups?.length).toBeGreaterThan(0);
    const names = rules.map((rule) => rule.alert);
    expect(new Set(names).size, 'alert names are unique').toBe(names.length);
    for (const group of ruleFile.groups ?? []) {
      expect(typeof group.name).toBe('string');
      expect(group.rules?.length, String(group.name)).toBeGreaterThan(0);
    }
    for (const rule of rules) {
      const name = String(rule.alert);
      expect(name, 'alert').toMatch(/^Settle[A-Z][A-Za-z]+$/);
      expect(typeof rule.expr === 'string' && rule.expr.trim().length > 0, `${name}: expr`).toBe(true);
      expect(rule.for, `${name}: for`).toMatch(/^\d+[smh]$/);
      expect(['critical', 'warning'], `${name}: labels.severity`).toContain(rule.labels?.severity);
      expect(typeof rule.annotations?.summary === 'string' && rule.annotations.summary.length > 0, `${name}: summary`).toBe(true);
      expect(typeof rule.annotations?.description === 'string' && rule.annotations.description.length > 0, `${name}: description`).toBe(true);
      expect(rule.annotations?.runbook_url, `${name}: runbook_url`).toMatch(/^docs\/operations\.md#[a-z0-9-]+$/);
    }
  });

  it('selects only series the apps register (or `up`)', async () => {
    const exposed = await exposedSeries();
    const unknown = rules.flatMap((rule) =>
      seriesNames(String(rule.expr))
        .filter((name) => !exposed.has(name) && !SCRAPE_SERIES.has(name))
        .map((name) => `${String(rule.alert)}: ${name}`),
    );
    expect(unknown).toEqual([]);
    expect(
      rules.filter((rule) => seriesNames(String(rule.expr)).length === 0).map((rule) => rule.alert),
      'rules selecting no series',
    ).toEqual([]);
  });

  it('reads series names out of PromQL, leaving functions, labels, keywords, strings and durations', () => {
    expect(
      seriesNames(
        'sum by (provider) (rate(settle_webhooks_total{outcome="rejected"}[5m])) / ignoring(reason) histogram_quantile(0.99, sum by (le) (rate(x_bucket[10m]))) > 3 unless up == 0',
      ),
    ).toEqual(['settle_webhooks_total', 'x_bucket', 'up']);
  });

  it('links every runbook to a section of docs/operations.md', () => {
    const anchors = new Set(
      readFileSync(operationsPath, 'utf8')
        .split('\n')
        .filter((line) => /^#{1,6} /.test(line))
        .map((line) => anchorOf(line.replace(/^#+ /, ''))),
    );
    const missing = rules.map((rule) => String(rule.annotations?.runbook_url).split('#')[1]!).filter((anchor) => !anchors.has(anchor));
    expect(missing).toEqual([]);
  });

  const promtool = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
  const promtoolMissing = promtool.error !== undefined || promtool.status !== 0;
  if (promtoolMissing)
    console.info('promtool is not on PATH (./settle test provisions it: ensure_promtool, scripts/local/lib.sh): the promtool checks of alerts.yml are skipped');

  it.skipIf(promtoolMissing)('passes `promtool check rules` and the rule unit tests of alerts.test.yml and alerts.daily.test.yml', { timeout: 30_000 }, () => {
    const check = spawnSync('promtool', ['check', 'rules', rulesPath], { encoding: 'utf8' });
    expect(check.status, check.stdout + check.stderr).toBe(0);
    const test = spawnSync('promtool', ['test', 'rules', ...testPaths], { encoding: 'utf8' });
    expect(test.status, test.stdout + test.stderr).toBe(0);
  });

  it('has a promtool unit test for every rule', () => {
    const tested = new Set(
      testPaths.flatMap((path) =>
        ((parse(readFileSync(path, 'utf8')) as { tests?: Array<{ alert_rule_test?: Array<{ alertname?: string }> }> }).tests ?? []).flatMap((test) =>
          (test.alert_rule_test ?? []).map((case_) => case_.alertname),
        ),
      ),
    );
    expect(rules.map((rule) => String(rule.alert)).filter((name) => !tested.has(name))).toEqual([]);
  });
});
