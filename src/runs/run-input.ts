import { labelProblem } from '../kernel/common/text';
import { ValidationFailed } from '../kernel/errors/api-error';
import { RUN_METADATA } from './runs.dto';

/** A run's metadata: at most 16 pairs of labels (keys 1 to 64 characters, values up to 500). */
export function checkedMetadata(
  metadata: Record<string, unknown> | undefined,
): Record<string, string> {
  if (metadata === undefined) return {};
  const entries = Object.entries(metadata);
  const issue = (loc: string[], msg: string) =>
    new ValidationFailed([{ loc: ['body', 'metadata', ...loc], msg, type: 'value_error' }]);
  if (entries.length > RUN_METADATA.pairs) {
    throw issue([], `Value error, at most ${RUN_METADATA.pairs} pairs`);
  }
  for (const [key, value] of entries) {
    if (typeof value !== 'string') throw issue([key], 'Input should be a valid string');
    if (!key.length || key.length > RUN_METADATA.key || labelProblem(key) !== undefined) {
      throw issue([key], `Value error, a key is 1 to ${RUN_METADATA.key} printable characters`);
    }
    if (value.length > RUN_METADATA.value || labelProblem(value) !== undefined) {
      throw issue(
        [key],
        `Value error, a value is at most ${RUN_METADATA.value} printable characters`,
      );
    }
  }
  return Object.fromEntries(entries) as Record<string, string>;
}
