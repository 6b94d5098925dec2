import { generateKeyPairSync, sign } from 'node:crypto';

/** A DER element: tag, length (short or long form), contents. */
function der(tag: number, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const length =
    body.length < 0x80
      ? Buffer.from([body.length])
      : body.length < 0x100
        ? Buffer.from([0x81, body.length])
        : Buffer.from([0x82, body.length >> 8, body.length & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, body]);
}

const SEQUENCE = 0x30;
const ECDSA_WITH_SHA256 = der(SEQUENCE, Buffer.from('06082a8648ce3d040302', 'hex'));

/**
 * A throwaway self-signed certificate for `commonName` (X.509 v1, P-256, valid 2020–2049) and its key, made when a
 * test runs: an HTTPS server on loopback needs one, and a private key kept in the repository would be flagged by
 * every secret scanner. Clients must not verify it (`rejectUnauthorized: false`), as a probe of the protocol does not.
 */
export function selfSignedCertificate(commonName = 'localhost'): { key: string; cert: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const name = der(
    SEQUENCE,
    der(0x31, der(SEQUENCE, Buffer.from('0603550403', 'hex'), der(0x0c, Buffer.from(commonName)))),
  );
  const validity = der(SEQUENCE, der(0x17, Buffer.from('200101000000Z')), der(0x17, Buffer.from('491231235959Z')));
  const tbs = der(
    SEQUENCE,
    der(0x02, Buffer.from([0x01])),
    ECDSA_WITH_SHA256,
    name,
    validity,
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
  );
  const signature = sign('sha256', tbs, privateKey);
  const certificate = der(SEQUENCE, tbs, ECDSA_WITH_SHA256, der(0x03, Buffer.from([0]), signature));
  const base64 = certificate.toString('base64').replace(/.{64}/g, '$&\n');
  return {
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    cert: `-----BEGIN CERTIFICATE-----\n${base64}${base64.endsWith('\n') ? '' : '\n'}-----END CERTIFICATE-----\n`,
  };
}
