// Certificates for tests of the TLS connections Quipu opens (the database, the mail server):
// certificate authorities of the test's own and the server and client certificates they issue,
// made with openssl in a temporary folder as the test runs, valid for a day. Nothing is committed,
// and no key outlives the test. A second authority stands for one the client was never told to trust.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A server's certificate and its key, PEM, as a TLS server takes them. */
export interface ServerCertificate {
  key: string;
  cert: string;
}

/** A certificate and its key, files, as a client names its own (sslcert, sslkey); openssl leaves the key readable by its owner only. */
export interface CertificateFiles {
  certFile: string;
  keyFile: string;
}

export interface TestCertificateAuthority {
  /** The authority's certificate, a file: what a client is told to trust (sslrootcert, NODE_EXTRA_CA_CERTS). */
  certFile: string;
  /** A server certificate for `names`, its subjectAltName: host names, and IP addresses as `IP:127.0.0.1`. */
  issue(names: string[]): ServerCertificate;
  /** A client certificate whose common name is `name`: the role PostgreSQL's `cert` method signs it in as. */
  issueClient(name: string): CertificateFiles;
}

// P-256 keys: made in milliseconds, where RSA keys would cost the test a second each.
const NEW_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1'];

const openssl = (args: string[]) => execFileSync('/usr/bin/openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });

export class TestCertificates {
  readonly folder = fs.mkdtempSync(path.join(os.tmpdir(), 'quipu-tls-'));
  #issued = 0;

  /** A new authority, `name` its common name. */
  authority(name: string): TestCertificateAuthority {
    const prefix = path.join(this.folder, `ca-${this.#issued++}`);
    const [certFile, keyFile] = [`${prefix}.crt`, `${prefix}.key`];
    openssl(['req', '-x509', ...NEW_KEY, '-keyout', keyFile, '-out', certFile, '-subj', `/CN=${name}`]);
    /** A certificate for `commonName`, signed by this authority, with `extensions`. */
    const signed = (kind: string, commonName: string, extensions: string[]): CertificateFiles => {
      const issued = path.join(this.folder, `${kind}-${this.#issued++}`);
      openssl([
        'req',
        '-x509',
        ...NEW_KEY,
        '-CA',
        certFile,
        '-CAkey',
        keyFile,
        '-keyout',
        `${issued}.key`,
        '-out',
        `${issued}.crt`,
        '-subj',
        `/CN=${commonName}`,
        ...['basicConstraints=critical,CA:FALSE', ...extensions].flatMap((extension) => ['-addext', extension]),
      ]);
      return { certFile: `${issued}.crt`, keyFile: `${issued}.key` };
    };
    return {
      certFile,
      issue: (names) => {
        const subjectAltName = names.map((n) => (n.startsWith('IP:') ? n : `DNS:${n}`)).join(',');
        const server = signed('server', names[0]!, [`subjectAltName=${subjectAltName}`, 'extendedKeyUsage=serverAuth']);
        return { key: fs.readFileSync(server.keyFile, 'utf8'), cert: fs.readFileSync(server.certFile, 'utf8') };
      },
      issueClient: (name) => signed('client', name, ['extendedKeyUsage=clientAuth']),
    };
  }

  remove(): void {
    fs.rmSync(this.folder, { recursive: true, force: true });
  }
}
