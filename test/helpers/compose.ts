// compose.yaml read as `docker compose` reads it: YAML merge keys applied, then every string
// interpolated from the variables an operator gives (their `.env` file): `${VAR}`, `${VAR:-default}`,
// `${VAR-default}`, `${VAR:?message}`, `${VAR?message}` and `$$`. Tests run its services as
// processes (test/cli/compose-topology.test.ts): the suite needs no container runtime. The secrets
// a container would find mounted at /run/secrets/<name> are then the files on this host.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const COMPOSE_FILE = new URL('../../compose.yaml', import.meta.url);

export interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  /** The top-level secrets mounted in the container, at /run/secrets/<name>. */
  secrets?: string[];
  depends_on?: Record<string, { condition: string }>;
  restart?: string;
}

/** Compose's own message for a required variable left unset or empty. */
export class MissingVariable extends Error {}

const VARIABLE = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}/g;

function interpolate(text: string, variables: Record<string, string>): string {
  return text.replace(VARIABLE, (whole, name: string | undefined, colon: string, kind: string, operand: string) => {
    if (name === undefined) return '$';
    const value = variables[name];
    // With the colon, an empty value counts as unset.
    const unset = value === undefined || (colon === ':' && value === '');
    if (!unset) return value;
    if (kind === '-') return operand;
    if (kind === '?') throw new MissingVariable(`required variable ${name} is missing a value: ${operand}`);
    return '';
  });
}

function interpolateAll(value: unknown, variables: Record<string, string>): unknown {
  if (typeof value === 'string') return interpolate(value, variables);
  if (Array.isArray(value)) return value.map((item) => interpolateAll(item, variables));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolateAll(item, variables)]));
  return value;
}

/** The services of compose.yaml for these variables; throws MissingVariable naming a required one left out. */
export function composeServices(variables: Record<string, string>): Record<string, ComposeService> {
  const document = parse(fs.readFileSync(COMPOSE_FILE, 'utf8'), { merge: true }) as { services: Record<string, unknown> };
  return interpolateAll(document.services, variables) as Record<string, ComposeService>;
}

/** The files of compose.yaml's top-level `secrets:` for these variables, by name, as paths on this host (a relative one from compose.yaml's folder). */
export function composeSecrets(variables: Record<string, string>): Record<string, string> {
  const document = parse(fs.readFileSync(COMPOSE_FILE, 'utf8')) as { secrets?: Record<string, { file: string }> };
  const folder = path.dirname(fileURLToPath(COMPOSE_FILE));
  return Object.fromEntries(Object.entries(document.secrets ?? {}).map(([name, { file }]) => [name, path.resolve(folder, interpolate(file, variables))]));
}

/** The service's environment with each /run/secrets/<name> it mounts replaced by that secret's file on this host. */
export function withSecretsMounted(service: ComposeService, secrets: Record<string, string>): Record<string, string> {
  const mounted = new Map((service.secrets ?? []).map((name) => [`/run/secrets/${name}`, secrets[name]!]));
  return Object.fromEntries(Object.entries(service.environment ?? {}).map(([name, value]) => [name, mounted.get(value) ?? value]));
}

/** Service names in an order that starts each after the services it depends on. */
export function startOrder(services: Record<string, ComposeService>): string[] {
  const order: string[] = [];
  const visit = (name: string, path: string[]) => {
    if (order.includes(name)) return;
    if (path.includes(name)) throw new Error(`compose.yaml: services depend on each other in a cycle: ${[...path, name].join(' → ')}`);
    for (const dependency of Object.keys(services[name]?.depends_on ?? {})) visit(dependency, [...path, name]);
    order.push(name);
  };
  for (const name of Object.keys(services)) visit(name, []);
  return order;
}

/** The services another one waits for to have exited 0 (`service_completed_successfully`): run once, to completion. */
export function runToCompletion(services: Record<string, ComposeService>): Set<string> {
  return new Set(
    Object.values(services).flatMap((service) =>
      Object.entries(service.depends_on ?? {})
        .filter(([, { condition }]) => condition === 'service_completed_successfully')
        .map(([name]) => name),
    ),
  );
}
