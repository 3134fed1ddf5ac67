import request from 'supertest';
import type { LedgerEntry } from '../../src/ledger';
import { bearer } from './app';

/**
 * The ledger against the counters, as the reconciliation specs read them over the API
 * (test/ledger/reconciliation*.e2e-spec.ts): every key's entries against its usage per day, tool
 * and month, every run's against its spending.
 */

export interface Usage {
  used: number;
  monthly: { used: number } | null;
  history: {
    date: string;
    used: number;
    by_tool: Record<string, { calls: number; credits: number; failed: number }>;
  }[];
}

/** The whole range of a ledger query (NDJSON: every entry, not a page). */
export async function ledgerOf(
  url: string,
  admin: string,
  query: Record<string, string> = {},
): Promise<LedgerEntry[]> {
  const res = await request(url)
    .get('/api/v1/ledger')
    .query(query)
    .set(bearer(admin))
    .set('Accept', 'application/x-ndjson')
    .buffer(true)
    .parse((r, done) => {
      let text = '';
      r.on('data', (chunk: Buffer) => (text += chunk.toString()));
      r.on('end', () => done(null, text));
    });
  expect(res.status).toBe(200);
  return (res.body as string)
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LedgerEntry);
}

/** Credits and charges of entries, by a key of each (an entry's day, its tool...). */
export function tally(entries: LedgerEntry[], by: (e: LedgerEntry) => string) {
  const out: Record<string, { calls: number; credits: number }> = {};
  for (const e of entries) {
    const t = (out[by(e)] ??= { calls: 0, credits: 0 });
    t.credits += e.credits;
    if (e.kind === 'charge') t.calls += 1;
  }
  return out;
}

/** Drops the tools that neither counted a call nor hold a credit (a run's tool refunded whole). */
export const nonZero = <T extends { calls?: number; credits: number }>(byTool: Record<string, T>) =>
  Object.fromEntries(
    Object.entries(byTool)
      .filter(([, v]) => (v.calls ?? 0) !== 0 || v.credits !== 0)
      .map(([tool, v]) => [tool, { calls: v.calls ?? 0, credits: v.credits }]),
  );

/**
 * The reconciliation: for each key, its ledger (read by subject) against its counters, per UTC day
 * and tool (a refund counts on the day of the charge it gives back) and for the month; for each
 * run, its entries against its `spent` and `spent_by_tool`; and the ledger read across subjects
 * (the time index) holds exactly the entries of every subject (unless `acrossSubjects` is false:
 * after a kill -9 on a Cluster, until `doctor --fix` indexes what the stopped process left out).
 * Returns every entry of the keys.
 */
export async function reconcile(
  url: string,
  admin: string,
  keys: { id: string }[],
  runs: { id: string; parent: string }[],
  { acrossSubjects = true }: { acrossSubjects?: boolean } = {},
): Promise<LedgerEntry[]> {
  const everything: LedgerEntry[] = [];
  for (const { id } of keys) {
    const entries = await ledgerOf(url, admin, { subject: `key:${id}` });
    everything.push(...entries);
    const chargeDay = new Map<string, string>();
    for (const e of entries) {
      expect(e.subject.id).toBe(id);
      if (e.kind === 'charge' && e.invocation_id) chargeDay.set(e.invocation_id, e.at.slice(0, 10));
    }
    // A refund names the call it gives back, and gives it back once.
    const refunds = entries.filter((e) => e.kind === 'refund');
    expect(refunds.every((e) => e.invocation_id && chargeDay.has(e.invocation_id))).toBe(true);
    expect(new Set(refunds.map((e) => e.invocation_id)).size).toBe(refunds.length);
    const dayOf = (e: LedgerEntry) =>
      e.kind === 'charge' ? e.at.slice(0, 10) : chargeDay.get(e.invocation_id!)!;

    const res = await request(url)
      .get(`/api/v1/auth/api-keys/${id}/usage`)
      .query({ days: 3 })
      .set(bearer(admin));
    expect(res.status).toBe(200);
    const usage = res.body as Usage;
    const byDay = tally(entries, dayOf);
    for (const day of usage.history) {
      const ofDay = entries.filter((e) => dayOf(e) === day.date);
      expect({ key: id, date: day.date, used: day.used, by_tool: nonZero(day.by_tool) }).toEqual({
        key: id,
        date: day.date,
        used: byDay[day.date]?.credits ?? 0,
        by_tool: nonZero(tally(ofDay, (e) => e.tool)),
      });
    }
    // Every day with entries is among the days read (the suite runs within three UTC days).
    const read = new Set(usage.history.map((d) => d.date));
    expect(Object.keys(byDay).filter((day) => !read.has(day))).toEqual([]);
    const month = usage.history[0].date.slice(0, 7);
    const monthly = tally(entries, (e) => dayOf(e).slice(0, 7))[month]?.credits ?? 0;
    expect({ key: id, month: usage.monthly?.used }).toEqual({ key: id, month: monthly });
  }
  for (const run of runs) {
    const entries = await ledgerOf(url, admin, { subject: `key:${run.parent}`, run: run.id });
    expect(entries.every((e) => e.run_id === run.id)).toBe(true);
    const res = await request(url).get(`/api/v1/runs/${run.id}`).set(bearer(admin));
    expect(res.status).toBe(200);
    const view = res.body as { spent: number; spent_by_tool: Record<string, number> };
    const byTool = Object.fromEntries(
      Object.entries(view.spent_by_tool).map(([tool, credits]) => [tool, { credits }]),
    );
    const fromLedger = tally(entries, (e) => e.tool);
    expect({ run: run.id, spent: view.spent, by_tool: nonZero(byTool) }).toEqual({
      run: run.id,
      spent: entries.reduce((sum, e) => sum + e.credits, 0),
      by_tool: nonZero(
        Object.fromEntries(
          Object.entries(fromLedger).map(([tool, { credits }]) => [tool, { credits }]),
        ),
      ),
    });
  }
  // Across subjects (Redis: the time index; SQLite: the table by time): the same entries.
  if (acrossSubjects) {
    const all = await ledgerOf(url, admin);
    expect(all.map((e) => e.id).sort()).toEqual(everything.map((e) => e.id).sort());
  }
  return everything;
}
