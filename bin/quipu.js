#!/usr/bin/env node
// The command line runs the compiled service in dist/, which `npm ci` builds (`npm run build`).
import { main } from '../dist/cli/main.js';

await main(process.argv);
