/**
 * Encryption at rest for provider credentials (API tokens, passwords): AES-256-GCM with the
 * `SWITCHYARD_MASTER_KEY`, a fresh 96-bit nonce per value, and the connection id as associated
 * data so a ciphertext copied onto another connection's row fails to decrypt.
 * Stored form: `v1.<nonce b64url>.<ciphertext b64url>.<tag b64url>`.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export class SecretBox {
  private readonly key: Buffer;

  constructor(masterKeyBase64: string) {
    const key = Buffer.from(masterKeyBase64, 'base64');
    if (key.length !== 32) throw new Error('SWITCHYARD_MASTER_KEY must be 32 bytes, base64-encoded');
    this.key = key;
  }

  static generateKey(): string {
    return randomBytes(32).toString('base64');
  }

  seal(plaintext: string, associatedData: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', nonce.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  open(sealed: string, associatedData: string): string {
    const [version, nonce, body, tag] = sealed.split('.');
    if (version !== 'v1' || !nonce || body === undefined || !tag) throw new Error('unsupported sealed value');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(nonce, 'base64url'));
    decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }
}
