import { useId, useState } from 'react';
import type { Schemas } from '../api/client';
import { usePlans, useToolDetails } from '../api/queries';

export const BASE_SCOPES = ['services:read', 'services:execute', 'admin:read', 'admin:write'];

export const TEMPLATES: Record<string, string[]> = {
  read_only: ['services:read'],
  standard: ['services:read', 'services:execute'],
  admin: ['*'],
};

/** What the form holds: text as typed, turned into a request by `limitsOf`. */
export interface KeyFormState {
  name: string;
  /** A template's name, or `custom` for the scopes below. */
  template: string;
  scopes: string[];
  plan: string;
  daily: string;
  monthly: string;
  rate: string;
  expiresInDays: string;
}

export function emptyKeyForm(): KeyFormState {
  return {
    name: '',
    template: 'standard',
    scopes: [],
    plan: '',
    daily: '',
    monthly: '',
    rate: '',
    expiresInDays: '',
  };
}

export function formOfKey(key: Schemas['ApiKeyView']): KeyFormState {
  const text = (value: number | null) => (value === null ? '' : String(value));
  return {
    name: key.name,
    template: 'custom',
    scopes: key.scopes,
    plan: key.plan,
    daily: text(key.daily_limit),
    monthly: text(key.monthly_limit),
    rate: text(key.rate_limit),
    expiresInDays: '',
  };
}

/** A limit as typed: blank is null (the plan's); anything else is sent as typed, for the API to judge. */
function limit(text: string): number | null {
  const trimmed = text.trim();
  return trimmed === '' ? null : Number(trimmed);
}

export function limitsOf(form: KeyFormState) {
  return {
    daily_limit: limit(form.daily),
    monthly_limit: limit(form.monthly),
    rate_limit: limit(form.rate),
  };
}

function NumberField({
  label,
  hint,
  value,
  onChange,
}: {
  label: string;
  hint: string;
  value: string;
  onChange: (value: string) => void;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="number"
        inputMode="numeric"
        min={0}
        value={value}
        placeholder="plan's"
        onChange={(event) => onChange(event.target.value)}
        aria-describedby={`${id}-hint`}
      />
      <span className="hint" id={`${id}-hint`}>
        {hint}
      </span>
    </div>
  );
}

/**
 * The fields of a key: name, scopes (a template or a list), plan and limits, and for a new key
 * when it expires.
 */
export function KeyFields({
  form,
  onChange,
  creating,
}: {
  form: KeyFormState;
  onChange: (form: KeyFormState) => void;
  creating: boolean;
}) {
  const plans = usePlans();
  const tools = useToolDetails();
  const nameId = useId();
  const planId = useId();
  const [custom, setCustom] = useState(form.template === 'custom');
  const set = (changes: Partial<KeyFormState>) => onChange({ ...form, ...changes });
  const toolScopes = (tools.data?.tools ?? []).map((tool) => tool.scope);
  const toggle = (scope: string) =>
    set({
      scopes: form.scopes.includes(scope)
        ? form.scopes.filter((s) => s !== scope)
        : [...form.scopes, scope],
    });
  const defaultPlan = plans.data?.plans.find((plan) => plan.default)?.name;

  return (
    <>
      <div className="field">
        <label htmlFor={nameId}>Name</label>
        <input
          id={nameId}
          type="text"
          required
          maxLength={200}
          value={form.name}
          autoComplete="off"
          onChange={(event) => set({ name: event.target.value })}
        />
      </div>
      <fieldset>
        <legend>Scopes</legend>
        {creating && (
          <div className="checks" role="radiogroup" aria-label="Scopes from">
            {[...Object.keys(TEMPLATES), 'custom'].map((template) => (
              <label className="check" key={template}>
                <input
                  type="radio"
                  name="template"
                  checked={form.template === template}
                  onChange={() => {
                    setCustom(template === 'custom');
                    set({ template });
                  }}
                />
                {template === 'custom'
                  ? 'Choose scopes'
                  : `${template.replace('_', ' ')} (${TEMPLATES[template].join(', ')})`}
              </label>
            ))}
          </div>
        )}
        {(custom || !creating) && (
          <div className="checks" style={{ marginTop: creating ? 10 : 0 }}>
            {['*', ...BASE_SCOPES, ...toolScopes].map((scope) => (
              <label className="check mono" key={scope}>
                <input
                  type="checkbox"
                  checked={form.scopes.includes(scope)}
                  onChange={() => toggle(scope)}
                />
                {scope}
              </label>
            ))}
          </div>
        )}
      </fieldset>
      <div className="form-grid">
        <div className="field">
          <label htmlFor={planId}>Plan</label>
          <select
            id={planId}
            value={form.plan}
            onChange={(event) => set({ plan: event.target.value })}
          >
            {creating && <option value="">default{defaultPlan ? ` (${defaultPlan})` : ''}</option>}
            {plans.data?.plans.map((plan) => (
              <option key={plan.name} value={plan.name}>
                {plan.name}
              </option>
            ))}
          </select>
        </div>
        <NumberField
          label="Daily limit"
          hint="Credits a UTC day; blank: the plan's."
          value={form.daily}
          onChange={(daily) => set({ daily })}
        />
        <NumberField
          label="Monthly limit"
          hint="Credits a UTC month; blank: the plan's."
          value={form.monthly}
          onChange={(monthly) => set({ monthly })}
        />
        <NumberField
          label="Rate limit"
          hint="Calls a second; blank: the plan's."
          value={form.rate}
          onChange={(rate) => set({ rate })}
        />
        {creating && (
          <NumberField
            label="Expires in days"
            hint="1 to 3650; blank: never."
            value={form.expiresInDays}
            onChange={(expiresInDays) => set({ expiresInDays })}
          />
        )}
        {/* The key's external id (issue 43) goes here, beside the plan and limits, once the API has it. */}
      </div>
    </>
  );
}
