import { describe, expect, it } from 'vitest';
import { cpuBySide } from '../../bench/e2e/report.js';

describe('CPU per checkout by side', () => {
  it('puts the customer backend with its database, and the harness, apart from Settle, the three adding up to the whole machine', () => {
    const side = cpuBySide({
      ingestion: 1,
      verifier: 2,
      'provider-sandbox': 0.5,
      'customer backend (receiver kit)': 0.75,
      PostgreSQL: 3,
      "PostgreSQL, the customer backend's database": 0.25,
      'Kafka broker': 2,
      'load generator and observers (this process)': 1,
      'rest of the machine': 1.5,
      'whole machine': 12,
    });
    expect(side).toEqual({ settle: 8, customer: 1, harness: 3 });
  });

  it('refuses figures without the whole machine, rather than give Settle a side of nothing', () => {
    expect(() => cpuBySide({ ingestion: 1, 'rest of the machine': 1 })).toThrow(/no "whole machine" among the CPU figures: ingestion, rest of the machine/);
  });
});
