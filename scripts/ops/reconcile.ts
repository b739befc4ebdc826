/**
 * Reconciliation from the command line (`./settle reconcile ...`, docs/reconciliation.md). Thin:
 * argument parsing, output and progress here; the run itself is the verifier's, started and read
 * through ingestion's admin API.
 *
 *   ./settle reconcile --provider <p> --since <time> [--until <time>] [--dry-run] [--no-wait]
 *   ./settle reconcile runs [--provider <p>]
 *   ./settle reconcile exceptions [--status open|resolved] [--class <class>] [--provider <p>] [--run <run id>] [--csv]
 *
 * A run's progress bar (pages read of the provider's count, when it gives one) and its summary go
 * to standard error; tables and CSV to standard output. Environment: INGESTION_URL and
 * SETTLE_ADMIN_API_KEY (the stack's, by default). Exit codes: 0 done (the run completed), 1 the
 * run failed or the API refused, 2 usage error.
 */
import { parseArgs } from 'node:util';
import { Presets, SingleBar } from 'cli-progress';

const USAGE = `usage: settle reconcile --provider <p> --since <time> [--until <time>] [--dry-run] [--no-wait]
                        start a run over the window (ISO 8601 times; --until default now) and follow it
       settle reconcile runs [--provider <p>]
                        the latest runs, newest first
       settle reconcile exceptions [--status open|resolved] [--class <class>] [--provider <p>] [--run <run id>] [--csv]
                        exceptions, newest first (--csv: every match, as CSV, for a spreadsheet or an auditor)
environment: INGESTION_URL, SETTLE_ADMIN_API_KEY (the stack's by default)`;

class UsageError extends Error {}

/** A run as ingestion's admin API answers it (`GET /v1/admin/reconciliation-runs/{run_id}`). */
interface RunView {
  run_id: string;
  provider: string;
  kind: string;
  status: 'started' | 'progressed' | 'completed' | 'failed';
  window: { since: string; until: string };
  dry_run: boolean;
  pages: number;
  total_pages: number | null;
  listed: number;
  out_of_scope: number;
  too_recent: number;
  classes: Record<string, number>;
  exceptions_raised: number;
  exceptions_resolved: number;
  error: string | null;
}

/** How often a followed run is read, milliseconds. */
const POLL_MS = 500;

function ingestion(path: string): { url: string; headers: Record<string, string> } {
  const base = process.env.INGESTION_URL;
  const key = process.env.SETTLE_ADMIN_API_KEY;
  if (!base || !key) throw new UsageError('INGESTION_URL and SETTLE_ADMIN_API_KEY must be set (./settle reconcile reads them from the stack)');
  return { url: new URL(path, base.endsWith('/') ? base : `${base}/`).toString(), headers: { authorization: `Bearer ${key}`, accept: 'application/json' } };
}

/** One call to ingestion's admin API; a problem answer is printed with its code and ends the command. */
async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: T; text: string }> {
  const { url, headers } = ingestion(path);
  const response = await fetch(url, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  const json = (() => {
    try {
      return JSON.parse(text) as T;
    } catch {
      return undefined as T;
    }
  })();
  return { status: response.status, body: json, text };
}

class ApiError extends Error {}

function refused(status: number, problem: unknown): never {
  const p = (problem ?? {}) as { code?: string; detail?: string; title?: string };
  throw new ApiError(`ingestion answered ${status}: ${p.code ?? 'UNKNOWN'}: ${p.detail ?? p.title ?? ''}`);
}

function time(text: string | undefined, name: string): string | undefined {
  if (text === undefined) return undefined;
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new UsageError(`--${name} must be an ISO 8601 time (2026-11-28T00:00:00Z)`);
  return new Date(ms).toISOString();
}

/** Starts a run and, unless `--no-wait`, follows it to its end with a progress bar. */
async function start(values: Record<string, string | boolean | undefined>): Promise<number> {
  const provider = values.provider;
  const since = time(values.since as string | undefined, 'since');
  if (typeof provider !== 'string' || !since) throw new UsageError('--provider and --since are required');
  const until = time(values.until as string | undefined, 'until');
  const requested = await call<{ run_id: string; window: { since: string; until: string } }>('POST', 'v1/admin/reconciliation-runs', {
    provider,
    since,
    ...(until ? { until } : {}),
    dry_run: values['dry-run'] === true,
    requested_by: 'cli',
  });
  if (requested.status !== 202) refused(requested.status, requested.body);
  const { run_id: runId, window } = requested.body;
  process.stderr.write(`run ${runId}: ${provider} from ${window.since} until ${window.until}${values['dry-run'] ? ' (dry run)' : ''}\n`);
  if (values['no-wait']) {
    process.stdout.write(`${runId}\n`);
    return 0;
  }
  const bar = process.stderr.isTTY
    ? new SingleBar({ format: 'pages {bar} {value}/{total} | {listed} listed | {exceptions} exceptions', hideCursor: true }, Presets.shades_classic)
    : null;
  let started = false;
  for (;;) {
    const read = await call<RunView>('GET', `v1/admin/reconciliation-runs/${runId}`);
    if (read.status === 200) {
      const run = read.body;
      const payload = { listed: run.listed, exceptions: run.exceptions_raised };
      const total = Math.max(run.total_pages ?? run.pages + 1, run.pages);
      if (bar && !started) bar.start(total, run.pages, payload);
      else if (bar) {
        bar.setTotal(total);
        bar.update(run.pages, payload);
      }
      started = true;
      if (run.status === 'completed' || run.status === 'failed') {
        bar?.update(run.pages, payload);
        bar?.stop();
        summary(run);
        return run.status === 'completed' ? 0 : 1;
      }
    } else if (read.status !== 404) refused(read.status, read.body);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** The run's outcome: its counts per class and what is left to look at. */
function summary(run: RunView): void {
  const lines = [
    `run ${run.run_id} ${run.status}${run.dry_run ? ' (dry run: nothing recorded)' : ''}: ${run.pages} pages, ${run.listed} transactions listed`,
    `  out of scope ${run.out_of_scope}, too recent ${run.too_recent}`,
    ...Object.entries(run.classes)
      .filter(([, n]) => n > 0)
      .map(([cls, n]) => `  ${cls.padEnd(24)} ${n}`),
    `  exceptions raised ${run.exceptions_raised}, resolved ${run.exceptions_resolved}`,
    ...(run.error ? [`  error: ${run.error}`] : []),
  ];
  process.stderr.write(`${lines.join('\n')}\n`);
}

async function runs(values: Record<string, string | boolean | undefined>): Promise<number> {
  const query = new URLSearchParams({ limit: '20', ...(typeof values.provider === 'string' ? { provider: values.provider } : {}) });
  const read = await call<{ runs: RunView[] }>('GET', `v1/admin/reconciliation-runs?${query.toString()}`);
  if (read.status !== 200) refused(read.status, read.body);
  for (const r of read.body.runs) {
    const exceptions = `${r.exceptions_raised} raised`;
    process.stdout.write(
      `${r.run_id}  ${r.provider.padEnd(11)} ${r.kind.padEnd(11)} ${r.status.padEnd(10)} ${r.window.since} .. ${r.window.until}  ${r.listed} listed, ${exceptions}\n`,
    );
  }
  return 0;
}

async function exceptions(values: Record<string, string | boolean | undefined>): Promise<number> {
  const query = new URLSearchParams();
  for (const [flag, param] of [
    ['status', 'status'],
    ['class', 'class'],
    ['provider', 'provider'],
    ['run', 'run_id'],
  ] as const) {
    const v = values[flag];
    if (typeof v === 'string') query.set(param, v);
  }
  if (values.csv) {
    query.set('format', 'csv');
    const read = await call<unknown>('GET', `v1/admin/reconciliation-exceptions?${query.toString()}`);
    if (read.status !== 200) refused(read.status, read.body);
    process.stdout.write(read.text);
    return 0;
  }
  query.set('limit', '100');
  const read = await call<{
    exceptions: Array<{
      exception_id: string;
      status: string;
      class: string;
      provider: string;
      reference: string;
      evidence: Array<{ field: string; provider: string; settle: string }>;
    }>;
  }>('GET', `v1/admin/reconciliation-exceptions?${query.toString()}`);
  if (read.status !== 200) refused(read.status, read.body);
  for (const e of read.body.exceptions) {
    const evidence = e.evidence.map((x) => `${x.field}: ${x.provider} / ${x.settle}`).join('; ');
    process.stdout.write(`${e.exception_id}  ${e.status.padEnd(8)} ${e.class.padEnd(22)} ${e.provider.padEnd(11)} ${e.reference}  ${evidence}\n`);
  }
  return 0;
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      provider: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      'dry-run': { type: 'boolean' },
      'no-wait': { type: 'boolean' },
      status: { type: 'string' },
      class: { type: 'string' },
      run: { type: 'string' },
      csv: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const [command] = positionals;
  if (command === undefined) return start(values);
  if (command === 'runs') return runs(values);
  if (command === 'exceptions') return exceptions(values);
  throw new UsageError(`unknown command ${command}`);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError || (error instanceof TypeError && /ERR_PARSE_ARGS/.test(String((error as { code?: string }).code)))) {
      process.stderr.write(`${error.message}\n${USAGE}\n`);
      process.exit(2);
    }
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
