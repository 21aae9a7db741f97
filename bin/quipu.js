#!/usr/bin/env node
// The service runs its TypeScript sources directly through tsx's loader, so `npm ci` is the
// whole installation: there is no build step that could drift from the sources.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
await main(process.argv);
