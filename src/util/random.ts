/**
 * UUIDs, random bytes and SHA-256 from the runtime's Web Crypto and Bun's hasher rather than `node:crypto`, whose
 * import alone costs a start ~6 ms of CPU (measured in the compiled binary, Bun 1.4.5; issue 21). Same outputs:
 * RFC 4122 v4 UUIDs, bytes from the OS's CSPRNG, lowercase hex digests.
 */
export const randomUUID = (): string => crypto.randomUUID();

/** `n` bytes from the OS's CSPRNG, as node:crypto's randomBytes gives them. */
export const randomBytes = (n: number): Buffer => Buffer.from(crypto.getRandomValues(new Uint8Array(n)).buffer);

/** SHA-256 of `data` (UTF-8 for a string), lowercase hex. */
export const sha256Hex = (data: string | Uint8Array): string => new Bun.CryptoHasher("sha256").update(data).digest("hex");
