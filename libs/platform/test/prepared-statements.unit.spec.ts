import { describe, expect, it } from 'vitest';
import { MAX_PREPARED_STATEMENTS, PreparedStatementNames } from '@settle/platform';

/** Which statements a process prepares (docs/postgres.md, "Prepared statements"). */
describe('PreparedStatementNames', () => {
  const insert = 'INSERT INTO s.outbox (topic) SELECT t FROM unnest($1::text[]) AS m(t)';

  it('names a text from its second use on, always under the same name', () => {
    const names = new PreparedStatementNames();
    expect(names.nameOf(insert)).toBeUndefined();
    const name = names.nameOf(insert);
    expect(name).toMatch(/^settle_[0-9a-f]{24}$/);
    expect(names.nameOf(`${'INSERT INTO s.outbox (topic)'} SELECT t FROM unnest($1::text[]) AS m(t)`)).toBe(name);
    expect(new PreparedStatementNames().nameOf(insert)).toBeUndefined();
  });

  it('gives different texts different names', () => {
    const names = new PreparedStatementNames();
    const other = 'DELETE FROM s.outbox WHERE id = ANY($1::bigint[])';
    for (const text of [insert, other]) names.nameOf(text);
    expect(names.nameOf(insert)).not.toBe(names.nameOf(other));
  });

  it.each([
    ['SELECT * FROM ledger.events WHERE stream_id = $1 ORDER BY revision'],
    ['SELECT e.* FROM ledger.events e WHERE e.position > $1'],
    ['SELECT a, b.* FROM t a JOIN u b ON a.id = b.id WHERE a.id = $1'],
    ['INSERT INTO dispatcher.endpoints (id, url) VALUES ($1, $2) RETURNING *'],
  ])('never names a statement whose result is a table’s columns: %s', (text) => {
    const names = new PreparedStatementNames();
    names.nameOf(text);
    expect(names.nameOf(text)).toBeUndefined();
  });

  it.each([
    ['INSERT INTO ledger.merkle_nodes (level, idx, hash) SELECT * FROM unnest($1::smallint[], $2::bigint[], $3::bytea[])'],
    ['SELECT count(*) AS n FROM dispatcher.deliveries WHERE endpoint_id = $1'],
    ['SELECT hash FROM ledger.merkle_nodes WHERE (level, idx) IN (SELECT * FROM unnest($1::smallint[], $2::bigint[]))'],
  ])('names a statement whose `*` is not a table’s columns: %s', (text) => {
    const names = new PreparedStatementNames();
    names.nameOf(text);
    expect(names.nameOf(text)).toMatch(/^settle_/);
  });

  it(`names at most ${MAX_PREPARED_STATEMENTS} texts by default, then runs new ones unnamed`, () => {
    const names = new PreparedStatementNames();
    const texts = Array.from({ length: MAX_PREPARED_STATEMENTS + 5 }, (_, i) => `SELECT $1::int + ${i}`);
    for (const text of texts) names.nameOf(text);
    const named = texts.map((t) => names.nameOf(t));
    expect(named.filter((n) => n !== undefined)).toHaveLength(MAX_PREPARED_STATEMENTS);
    expect(named.slice(MAX_PREPARED_STATEMENTS).every((n) => n === undefined)).toBe(true);
    // Those named stay named.
    expect(names.nameOf(texts[0]!)).toBe(named[0]);
  });
});
