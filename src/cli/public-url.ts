// The public base URL a command writes into what it causes (receipt_url, notifications, emails):
// the running server's. `quipu serve` records its own in the database; a one-shot command or a
// worker given neither PUBLIC_BASE_URL nor PORT takes that one, since run without the server's
// environment it would otherwise write http://localhost:3000 links to a server elsewhere
// (docs/cli.md).
import type { AppContext } from '../app/context.js';
import { loadConfig, publicBaseUrlSetting } from '../config.js';
import { recordedPublicBaseUrl } from '../store/public-base-url.js';

/** Switches `ctx` to the recorded URL unless the environment names one; returns where the URL in use comes from. */
export async function followServer(ctx: AppContext, env: Record<string, string | undefined> = process.env): Promise<string> {
  const setting = publicBaseUrlSetting(env);
  if (setting) return setting;
  const recorded = await recordedPublicBaseUrl(ctx.db);
  if (recorded === undefined) return 'the default: no quipu serve has started on this database';
  // Loaded again rather than patched: what derives from the URL (SMTP_FROM's default) follows it.
  ctx.config = loadConfig({ ...env, PUBLIC_BASE_URL: recorded });
  return 'recorded by quipu serve';
}

/** Said on stderr beside the database's name by every command that acts, and by the worker. */
export function announceServer(ctx: AppContext, source: string): void {
  console.error(`server: ${ctx.config.publicBaseUrl} (${source})`);
}
