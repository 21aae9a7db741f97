// API keys are stored as their SHA-256: they are random UUIDs (122 bits), so a fast hash is as
// safe as a slow one and keeps the per-request lookup cheap.
import { createHash } from 'node:crypto';

export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex');
}
