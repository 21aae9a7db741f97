// Vitest's global setup: tests start `quipu` from dist/ (process.ts), so every run first builds
// dist/ from the sources as they are now (`npm run build`), and never tests an older build. A file
// that does not compile (someone's edit in progress) is reported and left out of dist/; the tests
// that need it fail, the others run.
import { execFileSync } from 'node:child_process';

export default function buildDist(): void {
  try {
    execFileSync(process.execPath, [new URL('../../scripts/build.js', import.meta.url).pathname], { stdio: ['ignore', 'inherit', 'inherit'] });
  } catch {
    console.error('build-dist: dist/ was built without the files named above');
  }
}
