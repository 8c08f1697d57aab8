/**
 * The run form: the preset, the parameters, and the number fields as typed with every field's message. A number
 * is kept as text until it is checked (on blur or Run); Run stays disabled while any message stands, and a
 * message goes when its cause is fixed.
 */
import type { LimitedParam } from '../contract/limits';
import { SCHEMA_PRESETS } from '../contract/presets';
import type { RunParams } from '../contract/runParams';
import { parseNumber, validateRunParams, type FieldErrors, type RunField } from '../contract/validation';
import { hasOwnKey } from '../contract/ownKeys';
import type { StoreAccess } from './slice';
import { FIRST_PRESET, FRESH_PARAMS, type SpecActions, type SpecState } from './state';

type FormSlice = Pick<SpecState, 'preset' | 'params' | 'form'> &
  Pick<SpecActions, 'setParams' | 'setFieldText' | 'commitField' | 'choosePreset' | 'setSchemaText'>;

/** A copy of `record` without `key`. */
const omit = <T extends object>(record: T, key: string): T =>
  Object.fromEntries(Object.entries(record).filter(([name]) => name !== key)) as T;

/** Messages that no longer apply to `params`: a message goes once its field is fixed. Number fields being typed keep theirs. */
function remainingErrors(params: RunParams, form: SpecState['form']): FieldErrors {
  const checked = validateRunParams(params);
  const still: FieldErrors = {};
  for (const [name, message] of Object.entries(form.errors) as [RunField, string][]) {
    if (hasOwnKey(form.text, name)) still[name] = message;
    else if (!checked.ok && checked.errors[name]) still[name] = checked.errors[name];
  }
  return still;
}

/**
 * Checks every field (the typed text first) before anything reaches the engine; false, with each message next
 * to its field, when something is wrong.
 */
export function checkForm({ set, get }: StoreAccess): boolean {
  const { form, params } = get();
  let next = { ...params };
  const errors: FieldErrors = {};
  for (const [name, text] of Object.entries(form.text) as [LimitedParam, string][]) {
    const parsed = parseNumber(name, text);
    if ('value' in parsed) next = { ...next, [name]: parsed.value };
    else errors[name] = parsed.error;
  }
  const checked = validateRunParams(next);
  if (!checked.ok) Object.assign(errors, checked.errors, errors);
  const text = Object.fromEntries(Object.entries(form.text).filter(([name]) => hasOwnKey(errors, name)));
  set({ params: next, form: { text, errors } });
  return Object.keys(errors).length === 0;
}

export function formSlice({ set, get }: StoreAccess): FormSlice {
  const replaceParams = (next: RunParams) => {
    const { form } = get();
    set({ params: next, form: { ...form, errors: remainingErrors(next, form) } });
  };
  return {
    preset: FIRST_PRESET.id,
    params: FRESH_PARAMS,
    form: { text: {}, errors: {} },
    setParams(params) {
      replaceParams({ ...get().params, ...params });
    },
    setFieldText(name, text) {
      const { form } = get();
      let errors = form.errors;
      // A standing message follows the typing, so it goes as soon as the text is right; a new one waits for blur.
      if (errors[name] !== undefined) {
        const parsed = parseNumber(name, text);
        errors = 'value' in parsed ? omit(errors, name) : { ...errors, [name]: parsed.error };
      }
      set({ form: { text: { ...form.text, [name]: text }, errors } });
    },
    commitField(name) {
      const { form, params } = get();
      const text = form.text[name];
      if (text === undefined) return;
      const parsed = parseNumber(name, text);
      if ('error' in parsed)
        return set({ form: { text: form.text, errors: { ...form.errors, [name]: parsed.error } } });
      set({
        params: { ...params, [name]: parsed.value },
        form: { text: omit(form.text, name), errors: omit(form.errors, name) },
      });
    },
    choosePreset(preset) {
      const found = SCHEMA_PRESETS.find((candidate) => candidate.id === preset);
      const { params } = get();
      if (found) {
        const rest: RunParams = { ...params };
        delete rest.trigger;
        set({ preset });
        // A preset brings its lecture's seed and temperature (the step the lecture shows: src/contract/presets.ts).
        replaceParams({
          ...rest,
          prompt: found.prompt,
          schemaText: JSON.stringify(found.schema, null, 2),
          seed: found.lecture.seed,
          temperature: found.lecture.temperature,
          ...(found.trigger === undefined ? {} : { trigger: found.trigger }),
        });
      } else {
        set({ preset });
        get().setParams({ schemaText: preset === 'free' ? null : (params.schemaText ?? '{\n  "type": "object"\n}') });
      }
    },
    setSchemaText(text) {
      set({ preset: 'custom' });
      get().setParams({ schemaText: text });
    },
  };
}
