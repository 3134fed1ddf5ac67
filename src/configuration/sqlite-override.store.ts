import type Database from 'better-sqlite3';
import type { SqliteDatabase } from '../kernel/store/sqlite/sqlite.database';
import { OverrideStore } from './override.store';

/**
 * Overrides in the embedded store: the `config_overrides` table. One process serves the file, so
 * its own writes are all the changes there are to announce (the CLI does not set overrides).
 */
export class SqliteOverrideStore extends OverrideStore {
  private readonly all: Database.Statement;
  private readonly set: Database.Statement;
  private readonly remove: Database.Statement;

  constructor(private readonly sqlite: SqliteDatabase) {
    super();
    const { db } = sqlite;
    this.all = db.prepare('SELECT key, value FROM config_overrides');
    this.set = db.prepare(
      `INSERT INTO config_overrides (key, value, updated_at) VALUES (?, ?, ?)
       ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
    );
    this.remove = db.prepare('DELETE FROM config_overrides WHERE key = ?');
  }

  getOverrides(): Promise<Record<string, unknown>> {
    return this.sqlite.attempt(() => {
      const rows = this.all.all() as { key: string; value: string }[];
      return Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.value) as unknown]));
    });
  }

  async setOverride(key: string, value: unknown): Promise<void> {
    await this.sqlite.attempt(() =>
      this.set.run(key, JSON.stringify(value), new Date().toISOString()),
    );
    this.notifyOverridesChanged();
  }

  async deleteOverride(key: string): Promise<void> {
    await this.sqlite.attempt(() => this.remove.run(key));
    this.notifyOverridesChanged();
  }
}
