import { nextUtcMidnight, utcDay } from './clock';

describe('utcDay', () => {
  it('names the UTC day of a moment, across midnights, in any order of calls', () => {
    const moments: [string, string][] = [
      ['2026-11-22T23:59:59.999Z', '2026-11-22'],
      ['2026-11-23T00:00:00.000Z', '2026-11-23'],
      ['2026-11-22T00:00:00.000Z', '2026-11-22'],
      ['1969-12-31T23:59:59.999Z', '1969-12-31'],
      ['1970-01-01T00:00:00.000Z', '1970-01-01'],
      ['2024-02-29T12:00:00.000Z', '2024-02-29'],
      ['2026-11-22T12:00:00.000Z', '2026-11-22'],
    ];
    for (const [moment, day] of moments) expect(utcDay(new Date(moment))).toBe(day);
  });

  it('agrees with the next midnight', () => {
    const at = new Date('2026-11-22T18:30:00Z');
    expect(utcDay(nextUtcMidnight(at))).toBe('2026-11-23');
  });
});
