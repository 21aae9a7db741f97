// `quipu` from its TypeScript sources, as it ran before it shipped compiled: run as
// `node --import tsx bench/quipu-sources.ts <command>`, for the start-up section to compare with.
import { main } from '../src/cli/main.js';

await main(process.argv);
