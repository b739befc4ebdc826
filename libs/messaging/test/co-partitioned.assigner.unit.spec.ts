import { describe, expect, it } from 'vitest';
import { assignCoPartitioned } from '@settle/messaging';

const counts = { 'settle.transaction-events.v1': 6, 'settle.consensus-results.v1': 6 };

describe('co-partitioned assignment', () => {
  it('gives partition p of every topic to the same member, each partition to exactly one member', () => {
    for (const members of [['a'], ['a', 'b'], ['c', 'a', 'b'], ['a', 'b', 'c', 'd'], ['a', 'b', 'c', 'd', 'e', 'f', 'g']]) {
      const assignment = assignCoPartitioned(members, counts);
      expect([...assignment.keys()].sort()).toEqual([...members].sort());
      const owners = new Map<number, string>();
      for (const [member, topics] of assignment) {
        const [events = [], results = []] = [topics['settle.transaction-events.v1'], topics['settle.consensus-results.v1']];
        expect(events).toEqual(results);
        for (const p of events) {
          expect(owners.has(p)).toBe(false);
          owners.set(p, member);
        }
      }
      expect([...owners.keys()].sort()).toEqual([0, 1, 2, 3, 4, 5]);
    }
  });

  it('depends only on the membership, not on the order members are listed in', () => {
    expect(assignCoPartitioned(['b', 'a', 'c'], counts)).toEqual(assignCoPartitioned(['c', 'b', 'a'], counts));
  });

  it('refuses topics with different partition counts rather than split a key between owners', () => {
    expect(() => assignCoPartitioned(['a'], { x: 6, y: 3 })).toThrow(/equal partition counts/);
  });

  it('leaves extra members idle when there are more members than partitions', () => {
    const assignment = assignCoPartitioned(['a', 'b', 'c'], { x: 2 });
    expect(assignment.get('c')).toEqual({});
  });
});
