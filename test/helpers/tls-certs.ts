import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCerts {
  dir: string;
  /** Absolute path of a file in `dir`: ca.pem, server.pem, server.key. */
  file(name: string): string;
  /** The server certificate and key as PEM text, the shape `startServer({ tls })` takes. */
  serverTls(): { cert: string; key: string };
  cleanup(): void;
}

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/**
 * A throw-away private CA (ca.pem) and a server certificate it signed for 127.0.0.1 and localhost
 * (server.pem, server.key), made with openssl, valid for one day.
 */
export function makeTestCerts(): TestCerts {
  const dir = mkdtempSync(join(tmpdir(), 'textgen-certs-'));
  const file = (name: string): string => join(dir, name);
  const openssl = (...args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: 'pipe', timeout: 10_000 });
  };
  openssl('req', '-x509', ...EC, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=Textgen Test CA');
  openssl('req', ...EC, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  writeFileSync(file('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '1',
    '-extfile',
    'server.ext',
  );
  return {
    dir,
    file,
    serverTls: () => ({
      cert: readFileSync(file('server.pem'), 'utf8'),
      key: readFileSync(file('server.key'), 'utf8'),
    }),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
