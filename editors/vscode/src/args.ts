// Argument skeletons for "agentls: Run Tool…": a JSON object with each required property set to
// a value of its type, so a person only has to fill in the values. Pure.

import type { JsonSchema } from './contribution';

function valueFor(schema: unknown): unknown {
  const s = (typeof schema === 'object' && schema !== null ? schema : {}) as JsonSchema;
  if ('default' in s) return s.default;
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'string':
      return '';
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : 0;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return skeleton(s);
    case 'null':
      return null;
    default:
      return '';
  }
}

/** The object holding each required property of schema, in the order `required` lists them. */
export function skeleton(schema: JsonSchema): { [key: string]: unknown } {
  const props = (typeof schema.properties === 'object' && schema.properties !== null ? schema.properties : {}) as JsonSchema;
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [];
  const out: { [key: string]: unknown } = {};
  for (const name of required) {
    out[name] = valueFor(props[name]);
  }
  return out;
}

/** The skeleton as the text a person edits. */
export function skeletonText(schema: JsonSchema): string {
  return JSON.stringify(skeleton(schema), null, 2);
}
