"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.SqliteStore = void 0;
const better_sqlite3_1 = __importDefault(require("better-sqlite3"));
const node_fs_1 = require("node:fs");
const node_path_1 = require("node:path");
const store_1 = require("./store");
const MIGRATIONS = [
    `CREATE TABLE api_keys (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     prefix TEXT NOT NULL,
     hash TEXT NOT NULL UNIQUE,
     scopes TEXT NOT NULL,
     plan TEXT NOT NULL,
     daily_limit INTEGER,
     rate_limit INTEGER,
     created_at TEXT NOT NULL,
     expires_at TEXT,
     revoked_at TEXT,
     last_used_at TEXT
   );
   CREATE TABLE config_overrides (key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at TEXT NOT NULL);
   CREATE TABLE usage_counters (
     key_id TEXT NOT NULL,
     day TEXT NOT NULL,
     count INTEGER NOT NULL,
     PRIMARY KEY (key_id, day)
   ) WITHOUT ROWID;`,
];
const CHECKPOINT_EVERY = 1000;
const toRecord = (row) => ({
    ...row,
    scopes: JSON.parse(row.scopes),
});
class SqliteStore extends store_1.Store {
    kind = 'sqlite';
    file;
    db;
    counters;
    stmt;
    counterStmt;
    countsSinceCheckpoint = 0;
    constructor(dataDir) {
        super();
        (0, node_fs_1.mkdirSync)(dataDir, { recursive: true, mode: 0o700 });
        this.file = (0, node_path_1.join)(dataDir, 'service.db');
        this.db = new better_sqlite3_1.default(this.file);
        this.db.pragma('journal_mode = WAL');
        this.db.pragma('synchronous = FULL');
        this.db.pragma('busy_timeout = 5000');
        this.db.pragma('foreign_keys = ON');
        this.migrate();
        this.counters = new better_sqlite3_1.default(this.file);
        this.counters.pragma('synchronous = NORMAL');
        this.counters.pragma('busy_timeout = 5000');
        this.stmt = {
            insertKey: this.db.prepare(`INSERT INTO api_keys (id, name, prefix, hash, scopes, plan, daily_limit, rate_limit,
           created_at, expires_at, revoked_at, last_used_at)
         VALUES (@id, @name, @prefix, @hash, @scopes, @plan, @daily_limit, @rate_limit,
           @created_at, @expires_at, @revoked_at, @last_used_at)`),
            countKeys: this.db.prepare('SELECT COUNT(*) AS n FROM api_keys').pluck(),
            byHash: this.db.prepare('SELECT * FROM api_keys WHERE hash = ?'),
            byId: this.db.prepare('SELECT * FROM api_keys WHERE id = ?'),
            list: this.db.prepare('SELECT * FROM api_keys ORDER BY created_at, id'),
            revoke: this.db.prepare('UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?'),
            touch: this.db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?'),
            overrides: this.db.prepare('SELECT key, value FROM config_overrides'),
            setOverride: this.db.prepare(`INSERT INTO config_overrides (key, value, updated_at) VALUES (?, ?, ?)
         ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`),
            deleteOverride: this.db.prepare('DELETE FROM config_overrides WHERE key = ?'),
        };
        this.counterStmt = {
            consume: this.counters
                .prepare(`INSERT INTO usage_counters (key_id, day, count) VALUES (?, ?, 1)
           ON CONFLICT(key_id, day) DO UPDATE SET count = count + 1 WHERE count < ?
           RETURNING count`)
                .pluck(),
            usage: this.counters
                .prepare('SELECT count FROM usage_counters WHERE key_id = ? AND day = ?')
                .pluck(),
            pruneUsage: this.counters.prepare('DELETE FROM usage_counters WHERE day < ?'),
        };
        this.pruneOldUsage();
    }
    describe() {
        return this.file;
    }
    migrate() {
        const version = this.db.pragma('user_version', { simple: true });
        for (let v = version; v < MIGRATIONS.length; v++) {
            this.db.transaction(() => {
                this.db.exec(MIGRATIONS[v]);
                this.db.pragma(`user_version = ${v + 1}`);
            })();
        }
    }
    pruneOldUsage() {
        const weekAgo = new Date(Date.now() - 7 * 86_400_000).toISOString().slice(0, 10);
        this.counterStmt.pruneUsage.run(weekAgo);
    }
    run(work) {
        try {
            return Promise.resolve(work());
        }
        catch (error) {
            if (error instanceof better_sqlite3_1.default.SqliteError &&
                /^SQLITE_(CANTOPEN|IOERR|CORRUPT|NOTADB|READONLY|BUSY|FULL)/.test(error.code)) {
                return Promise.reject(new store_1.StoreUnavailableError(`SQLite store failed: ${error.code}`, { cause: error }));
            }
            return Promise.reject(error instanceof Error ? error : new Error(String(error)));
        }
    }
    keyParams(key) {
        return { ...key, scopes: JSON.stringify(key.scopes) };
    }
    insertKey(key) {
        return this.run(() => {
            this.stmt.insertKey.run(this.keyParams(key));
        });
    }
    insertKeyIfNone(key) {
        return this.run(() => this.db
            .transaction(() => {
            if (this.stmt.countKeys.get() > 0)
                return false;
            this.stmt.insertKey.run(this.keyParams(key));
            return true;
        })
            .immediate());
    }
    findKeyByHash(hash) {
        return this.run(() => {
            const row = this.stmt.byHash.get(hash);
            return row && toRecord(row);
        });
    }
    findKeyById(id) {
        return this.run(() => {
            const row = this.stmt.byId.get(id);
            return row && toRecord(row);
        });
    }
    listKeys() {
        return this.run(() => this.stmt.list.all().map(toRecord));
    }
    revokeKey(id, at) {
        return this.run(() => this.stmt.revoke.run(at, id).changes > 0);
    }
    touchKey(id, at) {
        return this.run(() => {
            this.stmt.touch.run(at, id);
        });
    }
    getOverrides() {
        return this.run(() => {
            const rows = this.stmt.overrides.all();
            return Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.value)]));
        });
    }
    async setOverride(key, value) {
        await this.run(() => this.stmt.setOverride.run(key, JSON.stringify(value), new Date().toISOString()));
        this.notifyOverridesChanged();
    }
    async deleteOverride(key) {
        await this.run(() => this.stmt.deleteOverride.run(key));
        this.notifyOverridesChanged();
    }
    consumeQuota(keyId, day, limit) {
        const { consume, usage } = this.counterStmt;
        return this.run(() => {
            const counted = limit !== null && limit <= 0
                ? undefined
                : consume.get(keyId, day, limit ?? Number.MAX_SAFE_INTEGER);
            if (counted !== undefined) {
                this.checkpointNow();
                return { allowed: true, used: counted };
            }
            return { allowed: false, used: usage.get(keyId, day) ?? 0 };
        });
    }
    checkpointNow() {
        if (++this.countsSinceCheckpoint < CHECKPOINT_EVERY)
            return;
        this.countsSinceCheckpoint = 0;
        this.counters.pragma('wal_checkpoint(PASSIVE)');
    }
    getUsage(keyId, day) {
        return this.run(() => this.counterStmt.usage.get(keyId, day) ?? 0);
    }
    ping() {
        return this.run(() => {
            this.db.prepare('SELECT 1').get();
        });
    }
    checkIntegrity() {
        return this.run(() => {
            if (!this.db.open)
                throw new store_1.StoreUnavailableError('The SQLite store is closed');
            const check = new better_sqlite3_1.default(this.file, { readonly: true, fileMustExist: true, timeout: 1000 });
            try {
                const rows = check.pragma('quick_check');
                return rows.map((r) => r.quick_check).filter((r) => r !== 'ok');
            }
            finally {
                check.close();
            }
        });
    }
    close() {
        if (this.counters.open)
            this.counters.close();
        if (this.db.open)
            this.db.close();
        return Promise.resolve();
    }
}
exports.SqliteStore = SqliteStore;
//# sourceMappingURL=sqlite.store.js.map