// Request schemas generated from the domain's field tables: the OpenAPI document, ajv and the use
// cases all read the same rules.
import { type TObject, type TSchema, Type } from '@sinclair/typebox';
import { FORM_BOOLEANS, type FieldRule, type FieldTable } from '../domain/field-rules.js';
import { MAX_AMOUNT_TEXT } from '../domain/money.js';
import { asForm, type ExampleBody } from './request-examples.js';

export type BodyEncoding = 'json' | 'form';

function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

function fieldSchema(rule: FieldRule, encoding: BodyEncoding): TSchema {
  const common = defined({ description: rule.description });
  // Form bodies are text; their booleans and amounts are decoded by the use case. An amount's text
  // is bounded where it is read (MAX_AMOUNT_TEXT): a number with many zeros is still a number.
  if (rule.kind === 'amount')
    return encoding === 'json' ? Type.Number({ ...common, format: 'double' }) : Type.String({ ...common, maxLength: MAX_AMOUNT_TEXT });
  if (rule.kind === 'boolean') return encoding === 'json' ? Type.Boolean(common) : Type.String({ ...common, enum: Object.keys(FORM_BOOLEANS) });
  if (rule.kind === 'text-or-number' && encoding === 'json')
    return Type.Unsafe<string | number>(defined({ ...common, type: ['string', 'number'], maxLength: rule.lenient === true ? undefined : rule.maxLength }));
  // A lenient rule's format (and with `true` its length) are doubts the use case names, not the schema's to refuse.
  const format = rule.kind === 'string' || rule.kind === 'text-or-number' || rule.lenient ? undefined : rule.kind;
  const lengths = rule.lenient === true ? {} : { minLength: rule.minLength, maxLength: rule.maxLength };
  return Type.String(defined({ ...common, ...lengths, enum: rule.enum ? [...rule.enum] : undefined, format }));
}

/**
 * `example`: the body the API reference offers (request-examples.ts), written as the encoding sends
 * it. Swagger UI fills a form's fields one by one from each field's own example, and sends those
 * left empty not at all: every field of a form gets the example's value, or an empty one.
 */
export function schemaFromFields(table: FieldTable, encoding: BodyEncoding, example?: ExampleBody): TObject {
  const properties: Record<string, TSchema> = {};
  for (const [name, rule] of Object.entries(table)) {
    const field = fieldSchema(rule, encoding);
    const schema = example && encoding === 'form' ? { ...field, examples: [asForm(example)[name] ?? ''] } : field;
    properties[name] = rule.required ? schema : Type.Optional(schema);
  }
  return Type.Object(properties, defined({ additionalProperties: false, examples: example && [encoding === 'form' ? asForm(example) : example] }));
}
