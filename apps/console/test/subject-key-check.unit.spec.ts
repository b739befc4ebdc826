import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ConsoleMetrics } from '../src/metrics/console.metrics.js';

/** The console's check for subject keys gone without an erasure (docs/privacy.md, "When a key is missing"). */
describe('ConsoleMetrics.subjectKeyChecking', () => {
  it('sets the gauge from each count and logs the alert while keys are missing', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString('utf8'));
          done();
        },
      }),
    );
    const metrics = new ConsoleMetrics();
    const counts = [
      { missing: 2, sealedValues: 9 },
      { missing: 0, sealedValues: 9 },
    ];
    const checking = metrics.subjectKeyChecking(async () => counts.shift()!, logger);
    await checking.runOnce();
    expect((await metrics.subjectKeysMissing.get()).values[0]!.value).toBe(2);
    expect(lines.map((l) => JSON.parse(l) as { alert?: string; missing?: number })).toEqual([
      expect.objectContaining({ alert: 'SETTLE_PRIVACY_SUBJECT_KEYS_MISSING', missing: 2 }),
    ]);
    await checking.runOnce();
    expect((await metrics.subjectKeysMissing.get()).values[0]!.value).toBe(0);
    expect(lines).toHaveLength(1);
  });

  it('keeps the last value when a count fails (the read model not there yet)', async () => {
    const metrics = new ConsoleMetrics();
    let calls = 0;
    const checking = metrics.subjectKeyChecking(
      async () => {
        if (calls++ > 0) throw new Error('relation "read_model.unmatched_payments" does not exist');
        return { missing: 1, sealedValues: 1 };
      },
      pino({ level: 'silent' }),
    );
    await checking.runOnce();
    await checking.runOnce();
    expect((await metrics.subjectKeysMissing.get()).values[0]!.value).toBe(1);
  });
});
