/** The tables of credits added after the first schema (`usage_counters` is the day's credits). */
export const USAGE_MIGRATIONS = [
  `CREATE TABLE usage_months (
     key_id TEXT NOT NULL,
     month TEXT NOT NULL,
     credits INTEGER NOT NULL,
     PRIMARY KEY (key_id, month)
   ) WITHOUT ROWID;
   CREATE TABLE usage_by_tool (
     key_id TEXT NOT NULL,
     day TEXT NOT NULL,
     tool TEXT NOT NULL,
     calls INTEGER NOT NULL DEFAULT 0,
     credits INTEGER NOT NULL DEFAULT 0,
     failed INTEGER NOT NULL DEFAULT 0,
     PRIMARY KEY (key_id, day, tool)
   ) WITHOUT ROWID;`,
  // What each run spent on each tool (its budget is the run's record's).
  `CREATE TABLE run_spending (
     run_id TEXT NOT NULL,
     tool TEXT NOT NULL,
     credits INTEGER NOT NULL,
     PRIMARY KEY (run_id, tool)
   ) WITHOUT ROWID;`,
  // The day whose past usage was last pruned (SqliteUsageRetention), by any process on the file.
  `CREATE TABLE usage_retention (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     pruned_on TEXT NOT NULL
   );`,
];

/** A key's calls of a tool on a day, summed over one group commit. */
export interface ToolCount {
  keyId: string;
  day: string;
  tool: string;
  calls: number;
  credits: number;
}

/** A key's credits of one day or month during a group commit: as read, and as counted since. */
export interface Tally {
  keyId: string;
  period: string;
  read: number;
  used: number;
}
