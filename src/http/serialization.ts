// Answers are serialized by fast-json-stringify from their route's response schema, as Fastify
// does by default, but each serializer is compiled when its route first answers with it rather
// than when the server starts: compiling every route's response schemas up front took about a
// tenth of `quipu serve`'s start (its CPU profile, node --cpu-prof).
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

const fastJsonStringify = SerializerSelector();

export const lazySerializers: NonNullable<FastifyServerOptions['schemaController']> = {
  compilersFactory: {
    buildSerializer: (externalSchemas, options) => {
      const compile = fastJsonStringify(externalSchemas, options);
      return (route) => {
        let serialize: SerializerSelector.Serializer | undefined;
        return (data) => (serialize ??= compile(route))(data);
      };
    },
  },
};
