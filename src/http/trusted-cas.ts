/** The certificates a TLS connection trusts with `--ca-cert FILE`; shared by both transports. */
import { UsageError } from '../contract/errors.js';

/** Node's default roots plus the PEM file: a private CA must not make public hosts untrusted. */
export async function trustedCas(caCertPath: string): Promise<string[]> {
  let pem: string;
  try {
    pem = await (await import('node:fs/promises')).readFile(caCertPath, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : String(code ?? err);
    throw new UsageError(`cannot read CA certificate file ${caCertPath}: ${why}`, { cause: err });
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new UsageError(`CA certificate file ${caCertPath} holds no PEM certificate`, {
      hint: 'expected "-----BEGIN CERTIFICATE-----" blocks',
    });
  }
  // node:tls only here: a plain-HTTP request (the embedded server, a proxy-less intranet) never loads it.
  const { rootCertificates } = await import('node:tls');
  return [...rootCertificates, pem];
}
