import { Registry } from 'prom-client';
import { MetricsService, toolOutcome } from './metrics.service';

describe('toolOutcome', () => {
  it.each([
    [200, 'success'],
    [400, 'invalid_request'],
    [413, 'invalid_request'],
    [415, 'invalid_request'],
    [401, 'unauthenticated'],
    [402, 'quota_exceeded'],
    [403, 'forbidden'],
    [404, 'client_error'],
    [429, 'rate_limited'],
    [500, 'error'],
    [503, 'error'],
  ])('%i is %s', (status, outcome) => {
    expect(toolOutcome(status)).toBe(outcome);
  });
});

describe('MetricsService', () => {
  const value = async (registry: Registry, name: string, labels: Record<string, string>) => {
    const metric = await registry.getSingleMetric(name)?.get();
    const sample = metric?.values.find((v) =>
      Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want),
    );
    return sample?.value ?? 0;
  };

  it('keeps the counts of each application apart', async () => {
    const [a, b] = [new Registry(), new Registry()];
    new MetricsService(a).observeToolCall('greet', 200, 0.01);
    expect(await value(a, 'tool_calls_total', { tool: 'greet', outcome: 'success' })).toBe(1);
    new MetricsService(b);
    expect(await value(b, 'tool_calls_total', { tool: 'greet', outcome: 'success' })).toBe(0);
  });

  it('counts a 5xx tool call as a failure and a 402 as a quota rejection', async () => {
    const registry = new Registry();
    const metrics = new MetricsService(registry);
    metrics.observeToolCall('greet', 503, 0.01);
    metrics.observeToolCall('greet', 402, 0.01);
    expect(await value(registry, 'tool_failures_total', { tool: 'greet' })).toBe(1);
    expect(await value(registry, 'quota_rejections_total', { tool: 'greet' })).toBe(1);
  });

  it('counts a 503 of capacity or of a fair share under its own outcome, still a 5xx', async () => {
    const registry = new Registry();
    const metrics = new MetricsService(registry);
    metrics.observeToolCall('greet', 503, 0.01, 'capacity');
    metrics.observeToolCall('greet', 503, 0.01, 'fair_share');
    metrics.observeToolCall('greet', 503, 0.01, 'fair_share');
    const count = (outcome: string) =>
      value(registry, 'tool_calls_total', { tool: 'greet', outcome });
    expect([await count('capacity'), await count('fair_share'), await count('error')]).toEqual([
      1, 2, 0,
    ]);
    expect(await value(registry, 'tool_failures_total', { tool: 'greet' })).toBe(3);
  });

  it('shows both rate-limit kinds from the start, at zero', async () => {
    const registry = new Registry();
    new MetricsService(registry);
    const text = await registry.metrics();
    expect(text).toContain('rate_limit_rejections_total{kind="key"} 0');
    expect(text).toContain('rate_limit_rejections_total{kind="auth"} 0');
  });

  it('keeps how long tool calls took, by tool and outcome, in seconds', async () => {
    const registry = new Registry();
    const metrics = new MetricsService(registry);
    metrics.observeToolCall('greet', 200, 0.003);
    metrics.observeToolCall('greet', 200, 0.2);
    metrics.observeToolCall('greet', 504, 30);
    const bucket = (le: string, outcome = 'success') =>
      value(registry, 'tool_call_duration_seconds', { tool: 'greet', outcome, le });
    expect([await bucket('0.005'), await bucket('0.25'), await bucket('+Inf')]).toEqual([1, 2, 2]);
    expect([await bucket('10', 'error'), await bucket('30', 'error')]).toEqual([0, 1]);
  });
});
