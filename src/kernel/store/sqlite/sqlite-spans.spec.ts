import { statementName } from './sqlite-spans';

describe('statementName', () => {
  it.each([
    ['SELECT * FROM api_keys WHERE hash = ?', 'SELECT', 'api_keys'],
    [
      '  insert into usage_counters (key_id, day, count) VALUES (?, ?, ?)',
      'INSERT',
      'usage_counters',
    ],
    ['UPDATE "invocations" SET status = ? WHERE id = ?', 'UPDATE', 'invocations'],
    ['DELETE FROM audit_log WHERE at < ?', 'DELETE', 'audit_log'],
    ['PRAGMA data_version', 'PRAGMA', 'data_version'],
    ['CREATE TABLE IF NOT EXISTS schema_versions (concern TEXT)', 'CREATE', 'schema_versions'],
  ])('names %j by its operation and table, never its text', (sql, operation, table) => {
    expect(statementName(sql)).toEqual({ operation, table });
  });

  it('names a statement of no table by its operation alone', () => {
    expect(statementName('BEGIN')).toEqual({ operation: 'BEGIN', table: undefined });
  });
});
