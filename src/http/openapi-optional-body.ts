// @fastify/swagger marks every declared request body as required, because Fastify itself would
// insist on one; confirm and refunds take none (an SDK may send nothing), so the published
// document must say so, as the provider's does. A route opts out with this schema key, which the
// plugin copies onto the operation like any `x-` key and the transform below turns into
// `requestBody.required: false`.
export const OPTIONAL_BODY = 'x-optional-body';

interface Operation {
  [OPTIONAL_BODY]?: boolean;
  requestBody?: { required?: boolean };
}

interface Document {
  paths?: Record<string, Record<string, Operation>>;
}

export function optionalBodies<T extends object>(document: T): T {
  for (const operations of Object.values((document as Document).paths ?? {})) {
    for (const operation of Object.values(operations)) {
      if (!operation[OPTIONAL_BODY]) continue;
      delete operation[OPTIONAL_BODY];
      if (operation.requestBody) operation.requestBody.required = false;
    }
  }
  return document;
}
