import { shownUrl, toView } from './webhook-views';
import type { WebhookEndpoint } from './webhook.store';

describe("an endpoint's view", () => {
  it.each([
    ['https://hooks.example.com/x?token=s3cr3t', 'https://hooks.example.com/x?…'],
    ['https://hooks.example.com/x?a=1&b=2#part', 'https://hooks.example.com/x?…'],
    ['https://hooks.example.com/x?', 'https://hooks.example.com/x?…'],
    ['https://hooks.example.com/x', 'https://hooks.example.com/x'],
    ['https://hooks.example.com/x#a?b', 'https://hooks.example.com/x#a?b'],
  ])('shows %s as %s', (url, shown) => {
    expect(shownUrl(url)).toBe(shown);
  });

  it('shows the rotated-out secrets still signing, the latest expiry beside them, never a secret', () => {
    const endpoint: WebhookEndpoint = {
      id: 'wh_a',
      url: 'https://hooks.example.com/x?token=s3cr3t',
      events: ['*'],
      description: null,
      enabled: true,
      disabled_reason: null,
      secrets: [
        { value: 'whsec_current', expires_at: null },
        { value: 'whsec_second', expires_at: '2026-11-27T08:20:00.000Z' },
        { value: 'whsec_first', expires_at: '2026-11-27T09:00:00.000Z' },
      ],
      failing_since: null,
      consecutive_failures: 0,
      backlog_failed: 0,
      backlog_failed_at: null,
      created_at: '2026-11-27T08:00:00.000Z',
      updated_at: '2026-11-27T08:00:00.000Z',
    };
    const during = toView(endpoint, new Date('2026-11-27T08:10:00.000Z'));
    expect(during).toMatchObject({
      url: 'https://hooks.example.com/x?…',
      previous_secrets: [
        { expires_at: '2026-11-27T08:20:00.000Z' },
        { expires_at: '2026-11-27T09:00:00.000Z' },
      ],
      previous_secret_expires_at: '2026-11-27T09:00:00.000Z',
    });
    expect(JSON.stringify(during)).not.toMatch(/whsec_|s3cr3t/);
    const later = toView(endpoint, new Date('2026-11-27T08:30:00.000Z'));
    expect(later.previous_secrets).toEqual([{ expires_at: '2026-11-27T09:00:00.000Z' }]);
    expect(toView(endpoint, new Date('2026-11-27T10:00:00.000Z'))).toMatchObject({
      previous_secrets: [],
      previous_secret_expires_at: null,
    });
  });
});
