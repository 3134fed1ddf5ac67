import { z } from 'zod';
import { isPlainObject } from '../kernel/common/plain-object';
import { ApiError, InputRefused } from '../kernel/errors/api-error';
import { BODY_NOT_OBJECT } from '../kernel/validation/issues';
import { zodIssues } from '../kernel/validation/zod-issues';
import { SOURCE_NAME, SourceFields, type SourceFieldsInput } from './source-config';

/** What only the operator's file may say: a program to start and what it gets. */
const CONFIG_FILE_ONLY = ['command', 'args', 'env'] as const;

/** The fields `POST /api/v1/sources` takes: CONFIG_FILE's, less a program to start. */
const ApiFields = SourceFields.omit({ command: true, args: true, env: true });

/** `PATCH`'s: any of them, `null` to go back to the default. */
const ApiChanges = z.strictObject(
  Object.fromEntries(
    Object.entries(ApiFields.shape).map(([field, schema]) => [field, schema.nullable().optional()]),
  ),
);

const REFERENCE = /\$\{[A-Za-z_][A-Za-z0-9_]*\}/;

const onlyInFile = (what: string) => new ApiError(400, `${what} is allowed in CONFIG_FILE only.`);

/** The path of the first string holding a `${NAME}` reference, if any. */
function referenceIn(value: unknown, at: string): string | undefined {
  if (typeof value === 'string') return REFERENCE.test(value) ? at : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value)) {
    const found = referenceIn(item, at ? `${at}.${key}` : key);
    if (found) return found;
  }
  return undefined;
}

/** Whether a `document` names a file rather than a URL (a scheme:// of its own). */
export function isFilePath(document: string): boolean {
  return !/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(document);
}

/** The refusals of what the API may never create, before the fields' own checks. */
function refuseConfigOnly(body: Record<string, unknown>): void {
  const field = CONFIG_FILE_ONLY.find((name) => name in body);
  if (field) throw onlyInFile(field);
  const reference = referenceIn(body, '');
  if (reference) throw onlyInFile(`A \${NAME} reference (in ${reference})`);
  if (typeof body.document === 'string' && isFilePath(body.document)) {
    throw onlyInFile('A file path as document');
  }
}

function objectOf(body: unknown): Record<string, unknown> {
  const value = body === undefined ? {} : body;
  if (!isPlainObject(value)) throw new InputRefused([BODY_NOT_OBJECT]);
  return value;
}

/** The body of `POST /api/v1/sources`: the source's name and its fields, or a 400 saying why not. */
export function createInput(body: unknown): { name: string; fields: SourceFieldsInput } {
  const { name, ...rest } = objectOf(body);
  refuseConfigOnly(rest);
  if (name === undefined)
    throw new InputRefused([{ loc: ['body', 'name'], msg: 'Field required', type: 'missing' }]);
  if (typeof name !== 'string' || !SOURCE_NAME.test(name)) {
    throw new ApiError(400, 'name must match [a-z][a-z0-9-]{0,31}.');
  }
  const parsed = ApiFields.safeParse(rest);
  if (!parsed.success) throw new InputRefused(zodIssues(parsed.error, rest));
  return { name, fields: parsed.data };
}

/**
 * A source's fields after `PATCH`'s body: each field given replaces the one kept (`null` drops it:
 * its default applies); the whole checked again, or a 400 saying why not.
 */
export function patchedFields(
  before: SourceFieldsInput,
  body: unknown,
): {
  fields: SourceFieldsInput;
  changed: string[];
} {
  const changes = objectOf(body);
  refuseConfigOnly(changes);
  const parsed = ApiChanges.safeParse(changes);
  if (!parsed.success) throw new InputRefused(zodIssues(parsed.error, changes));
  const merged: Record<string, unknown> = { ...before };
  for (const [field, value] of Object.entries(parsed.data)) {
    if (value === null) delete merged[field];
    else if (value !== undefined) merged[field] = value;
  }
  const checked = ApiFields.safeParse(merged);
  if (!checked.success) throw new InputRefused(zodIssues(checked.error, merged));
  const after: Record<string, unknown> = checked.data;
  const was: Record<string, unknown> = before;
  const changed = Object.keys(parsed.data).filter(
    (field) => JSON.stringify(was[field]) !== JSON.stringify(after[field]),
  );
  return { fields: checked.data, changed };
}
