/** A certificate and key, PEM, for a sandbox that serves HTTPS. */
export interface TlsPair {
  cert: string;
  key: string;
}

const DAY_MS = 86_400_000;

/**
 * A fresh self-signed certificate for the loopback names a client may use (127.0.0.1, ::1, localhost),
 * in the subjectAltName, where TLS clients look for them. It is its own CA, so trusting the certificate
 * file (NODE_EXTRA_CA_CERTS) is all a client needs. Made with `selfsigned` (pure JS, no openssl on
 * the PATH needed), loaded only when asked for.
 */
export async function makeSelfSignedPair(now = Date.now()): Promise<TlsPair> {
  const { generate } = await import('selfsigned');
  const pems = await generate([{ name: 'commonName', value: 'chat-migrate sandbox' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    // From a day back: a client whose clock is a little behind must not find it "not yet valid".
    notBeforeDate: new Date(now - DAY_MS),
    notAfterDate: new Date(now + 30 * DAY_MS),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
          { type: 2, value: 'localhost' },
        ],
      },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}
