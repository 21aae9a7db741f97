// The advisories npm audit reports for the production components (`--omit=dev`: what an
// installation contains), read from its JSON (npm 10 and 11): each `vulnerabilities[name].via[]`
// object is an advisory, a string there is another vulnerable package it comes through. npm exits 1
// both with findings and when it could not ask the advisory service; only the second prints an
// `error` object.
import { spawnSync } from 'node:child_process';

export interface Advisory {
  id: number;
  package: string;
  title: string;
  url: string;
  severity: string;
}

export type AuditResult = { checked: true; advisories: Advisory[] } | { checked: false; reason: string };

interface AuditJson {
  message?: string;
  error?: { summary?: string; detail?: string };
  vulnerabilities?: Record<string, { via: (string | { source: number; name: string; title: string; url: string; severity: string })[] }>;
}

export function auditProductionComponents(root: string, registry: string | undefined): AuditResult {
  const args = ['audit', '--omit=dev', '--json', ...(registry ? ['--registry', registry] : [])];
  const npm = spawnSync('npm', args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (npm.error) throw new Error(`npm audit could not run: ${npm.error.message}`);
  let report: AuditJson;
  try {
    report = JSON.parse(npm.stdout) as AuditJson;
  } catch {
    throw new Error(`npm audit (exit ${npm.status}) printed no report: ${npm.stderr.trim() || npm.stdout.trim()}`);
  }
  if (report.error) {
    const reason = [report.message, report.error.summary, report.error.detail].filter((part) => part).join(': ');
    return { checked: false, reason: reason.replace(/\s+/g, ' ') };
  }
  const advisories = new Map<number, Advisory>();
  for (const vulnerability of Object.values(report.vulnerabilities ?? {}))
    for (const via of vulnerability.via)
      if (typeof via !== 'string') advisories.set(via.source, { id: via.source, package: via.name, title: via.title, url: via.url, severity: via.severity });
  return { checked: true, advisories: [...advisories.values()] };
}
