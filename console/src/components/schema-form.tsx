import { type FormEvent, useId, useState } from 'react';
import { Button } from './ui';

/** The part of JSON Schema the tools' input schemas use. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  description?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  items?: JsonSchema;
}

type Values = Record<string, string | boolean>;

function kindOf(schema: JsonSchema): string {
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (schema.enum) return 'enum';
  return type ?? 'json';
}

function initial(schema: JsonSchema): Values {
  const values: Values = {};
  for (const [name, field] of Object.entries(schema.properties ?? {})) {
    const kind = kindOf(field);
    if (kind === 'boolean') values[name] = field.default === true;
    else if (field.default !== undefined) {
      values[name] =
        typeof field.default === 'string' ? field.default : JSON.stringify(field.default);
    } else values[name] = '';
  }
  return values;
}

/**
 * The request body the form's values make: fields left blank are left out (the service applies
 * their defaults); numbers and JSON are sent as typed, for the service's validation to judge.
 */
export function bodyOf(schema: JsonSchema, values: Values): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(schema.properties ?? {})) {
    const value = values[name];
    const kind = kindOf(field);
    if (kind === 'boolean') {
      if (value === true || field.default !== undefined || schema.required?.includes(name)) {
        body[name] = value === true;
      }
      continue;
    }
    if (typeof value !== 'string' || value === '') continue;
    if (kind === 'integer' || kind === 'number') body[name] = Number(value);
    else if (kind === 'string' || kind === 'enum') body[name] = value;
    else {
      try {
        body[name] = JSON.parse(value) as unknown;
      } catch {
        body[name] = value;
      }
    }
  }
  return body;
}

function Field({
  name,
  schema,
  required,
  value,
  problem,
  onChange,
}: {
  name: string;
  schema: JsonSchema;
  required: boolean;
  value: string | boolean;
  /** What is wrong with the value, in words (the form's check, or the service's 400). */
  problem?: string;
  onChange: (value: string | boolean) => void;
}) {
  const id = useId();
  const kind = kindOf(schema);
  const hint = (
    <>
      {problem && (
        <span className="hint problem" id={`${id}-problem`}>
          {problem}
        </span>
      )}
      {schema.description && (
        <span className="hint" id={`${id}-hint`}>
          {schema.description}
        </span>
      )}
    </>
  );
  const described =
    [problem && `${id}-problem`, schema.description && `${id}-hint`].filter(Boolean).join(' ') ||
    undefined;
  const invalid = problem ? true : undefined;
  const label = (
    <label htmlFor={id} className="mono">
      {name}
      {required ? ' *' : ''}
    </label>
  );
  if (kind === 'boolean') {
    return (
      <div className="field">
        <label className="check mono" htmlFor={id}>
          <input
            id={id}
            data-field={name}
            type="checkbox"
            checked={value === true}
            onChange={(event) => onChange(event.target.checked)}
            aria-describedby={described}
            aria-invalid={invalid}
          />
          {name}
        </label>
        {hint}
      </div>
    );
  }
  if (kind === 'enum') {
    return (
      <div className="field">
        {label}
        <select
          id={id}
          data-field={name}
          value={String(value)}
          onChange={(event) => onChange(event.target.value)}
          aria-describedby={described}
          aria-invalid={invalid}
        >
          {!required && <option value="">(default)</option>}
          {schema.enum?.map((option) => (
            <option key={String(option)} value={String(option)}>
              {String(option)}
            </option>
          ))}
        </select>
        {hint}
      </div>
    );
  }
  if (kind === 'integer' || kind === 'number') {
    return (
      <div className="field">
        {label}
        <input
          id={id}
          data-field={name}
          type="number"
          required={required}
          min={schema.minimum}
          max={schema.maximum}
          step={kind === 'integer' ? 1 : 'any'}
          value={String(value)}
          onChange={(event) => onChange(event.target.value)}
          aria-describedby={described}
          aria-invalid={invalid}
        />
        {hint}
      </div>
    );
  }
  if (kind === 'string') {
    return (
      <div className="field">
        {label}
        <input
          id={id}
          data-field={name}
          type="text"
          required={required}
          maxLength={schema.maxLength}
          value={String(value)}
          onChange={(event) => onChange(event.target.value)}
          aria-describedby={described}
          aria-invalid={invalid}
        />
        {hint}
      </div>
    );
  }
  return (
    <div className="field">
      {label}
      <textarea
        id={id}
        data-field={name}
        rows={3}
        value={String(value)}
        onChange={(event) => onChange(event.target.value)}
        aria-describedby={described}
        aria-invalid={invalid}
        placeholder="JSON"
      />
      {hint}
    </div>
  );
}

/** The required fields left blank (a checkbox is never blank: unticked is `false`). */
export function missingOf(schema: JsonSchema, values: Values): string[] {
  return (schema.required ?? []).filter((name) => {
    const field = schema.properties?.[name];
    return field && kindOf(field) !== 'boolean' && String(values[name] ?? '').trim() === '';
  });
}

/**
 * A form made from a tool's input schema: one field a property. Required fields are checked
 * before anything is sent (the first one left blank takes the focus); `problems` are the
 * service's, by field (a 400's `detail`), shown under their fields.
 */
export function SchemaForm({
  schema,
  submitLabel,
  busy,
  disabled,
  problems,
  onSubmit,
}: {
  schema: JsonSchema;
  submitLabel: string;
  busy: boolean;
  disabled?: boolean;
  problems?: Record<string, string>;
  onSubmit: (body: Record<string, unknown>) => void;
}) {
  const [values, setValues] = useState<Values>(() => initial(schema));
  const [checked, setChecked] = useState(false);
  const missing = checked ? missingOf(schema, values) : [];
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setChecked(true);
    const blank = missingOf(schema, values);
    if (blank.length) {
      event.currentTarget
        .querySelector<HTMLElement>(`[data-field="${CSS.escape(blank[0])}"]`)
        ?.focus();
      return;
    }
    onSubmit(bodyOf(schema, values));
  };
  const fields = Object.entries(schema.properties ?? {});
  return (
    <form className="stack" method="post" onSubmit={submit} noValidate>
      {fields.length === 0 && <p className="hint">This tool takes no input.</p>}
      <div className="form-grid">
        {fields.map(([name, field]) => (
          <Field
            key={name}
            name={name}
            schema={field}
            required={schema.required?.includes(name) ?? false}
            value={values[name]}
            problem={missing.includes(name) ? 'Required.' : problems?.[name]}
            onChange={(value) => setValues((all) => ({ ...all, [name]: value }))}
          />
        ))}
      </div>
      {missing.length > 0 && (
        <p className="hint problem" role="alert">
          {missing.length === 1 ? 'A required field is' : `${missing.length} required fields are`}{' '}
          blank: nothing was sent.
        </p>
      )}
      <div className="actions">
        <Button kind="primary" type="submit" disabled={busy || disabled}>
          {busy ? 'Calling…' : submitLabel}
        </Button>
      </div>
    </form>
  );
}
