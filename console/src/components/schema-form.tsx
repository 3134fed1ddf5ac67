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
  onChange,
}: {
  name: string;
  schema: JsonSchema;
  required: boolean;
  value: string | boolean;
  onChange: (value: string | boolean) => void;
}) {
  const id = useId();
  const kind = kindOf(schema);
  const hint = schema.description && (
    <span className="hint" id={`${id}-hint`}>
      {schema.description}
    </span>
  );
  const described = schema.description ? `${id}-hint` : undefined;
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
            type="checkbox"
            checked={value === true}
            onChange={(event) => onChange(event.target.checked)}
            aria-describedby={described}
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
          value={String(value)}
          onChange={(event) => onChange(event.target.value)}
          aria-describedby={described}
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
          type="number"
          required={required}
          min={schema.minimum}
          max={schema.maximum}
          step={kind === 'integer' ? 1 : 'any'}
          value={String(value)}
          onChange={(event) => onChange(event.target.value)}
          aria-describedby={described}
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
          type="text"
          required={required}
          maxLength={schema.maxLength}
          value={String(value)}
          onChange={(event) => onChange(event.target.value)}
          aria-describedby={described}
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
        rows={3}
        value={String(value)}
        onChange={(event) => onChange(event.target.value)}
        aria-describedby={described}
        placeholder="JSON"
      />
      {hint}
    </div>
  );
}

/** A form made from a tool's input schema: one field a property. */
export function SchemaForm({
  schema,
  submitLabel,
  busy,
  disabled,
  onSubmit,
}: {
  schema: JsonSchema;
  submitLabel: string;
  busy: boolean;
  disabled?: boolean;
  onSubmit: (body: Record<string, unknown>) => void;
}) {
  const [values, setValues] = useState<Values>(() => initial(schema));
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
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
            onChange={(value) => setValues((all) => ({ ...all, [name]: value }))}
          />
        ))}
      </div>
      <div className="actions">
        <Button kind="primary" type="submit" disabled={busy || disabled}>
          {busy ? 'Calling…' : submitLabel}
        </Button>
      </div>
    </form>
  );
}
