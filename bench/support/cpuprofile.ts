import { readFileSync } from 'node:fs';

/*
 * Summaries of V8 CPU profiles (`node --cpu-prof`, `.cpuprofile` JSON): self time by function,
 * aggregated over every profile given (one per process or thread).
 */

/** The parts of a `.cpuprofile` the summary reads. */
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>;
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** One function's self time. */
export interface ProfileEntry {
  /** Function name (`(anonymous)` when V8 has none; `(garbage collector)`, `(program)` are V8's own). */
  fn: string;
  /** `file:line` (1-based), relative to `dist/` or `node_modules/`; `native` without a script. */
  location: string;
  samples: number;
  /** Share of every sample, idle included, %. */
  sharePct: number;
  /** Share of the samples taken while the thread was not idle, %. */
  busySharePct: number;
}

/** Self time of the top functions over one or more profiles. */
export interface ProfileSummary {
  files: string[];
  samples: number;
  idleSamples: number;
  /** Profiled wall time summed over the profiles, ms. */
  durationMs: number;
  top: ProfileEntry[];
}

function locationOf(url: string, lineNumber: number): string {
  if (!url) return 'native';
  const file = url
    .replace(/^file:\/\//, '')
    .replace(/^.*\/node_modules\//, '')
    .replace(/^.*\/dist\//, 'dist/');
  return `${file}:${lineNumber + 1}`;
}

/**
 * Aggregates the samples of `files` by function (name + script + line) and returns the `top`
 * functions by self samples. `(idle)` samples are counted apart and never listed.
 *
 * @throws when a file is not a readable `.cpuprofile`.
 */
export function summariseCpuProfiles(files: readonly string[], top = 25): ProfileSummary {
  const bySite = new Map<string, { fn: string; location: string; samples: number }>();
  let samples = 0;
  let idleSamples = 0;
  let durationMs = 0;
  for (const file of files) {
    const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
    durationMs += (profile.endTime - profile.startTime) / 1000;
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    for (const id of profile.samples) {
      const node = byId.get(id);
      if (!node) continue;
      samples += 1;
      const fn = node.callFrame.functionName || '(anonymous)';
      if (fn === '(idle)') {
        idleSamples += 1;
        continue;
      }
      const location = locationOf(node.callFrame.url, node.callFrame.lineNumber);
      const key = `${fn}\u0000${location}`;
      const site = bySite.get(key) ?? { fn, location, samples: 0 };
      site.samples += 1;
      bySite.set(key, site);
    }
  }
  const busy = Math.max(1, samples - idleSamples);
  return {
    files: [...files],
    samples,
    idleSamples,
    durationMs,
    top: [...bySite.values()]
      .sort((a, b) => b.samples - a.samples)
      .slice(0, top)
      .map((s) => ({ ...s, sharePct: (100 * s.samples) / Math.max(1, samples), busySharePct: (100 * s.samples) / busy })),
  };
}

/** The summary as a Markdown table, with a heading line of context. */
export function profileMarkdown(title: string, summary: ProfileSummary, notes: readonly string[] = []): string {
  const rows = summary.top.map(
    (e, i) =>
      `| ${i + 1} | \`${e.fn.replaceAll('|', '\\|')}\` | \`${e.location}\` | ${e.samples} | ${e.sharePct.toFixed(1)} % | ${e.busySharePct.toFixed(1)} % |`,
  );
  return [
    `# ${title}`,
    '',
    ...notes.map((n) => `${n}  `),
    `${summary.files.length} profile file(s), ${summary.samples} samples over ${(summary.durationMs / 1000).toFixed(1)} s of profiled wall time, ` +
      `${((100 * summary.idleSamples) / Math.max(1, summary.samples)).toFixed(1)} % idle.`,
    '',
    '| # | function (self time) | file:line | samples | % of samples | % of busy samples |',
    '|---:|---|---|---:|---:|---:|',
    ...rows,
    '',
  ].join('\n');
}
