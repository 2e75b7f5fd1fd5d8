/**
 * A URL's host as rules and redirects must see it: the WHATWG parser already lower-cases, percent-decodes and maps
 * look-alike dots and full-width letters; the trailing dots of a fully qualified name (`localhost.`, `evil.example%2e`)
 * name the same host and are removed. Returns undefined for a URL that does not parse. Never throws.
 */
export function urlHost(url: string | URL): string | undefined {
  try {
    return normalizeHost((typeof url === "string" ? new URL(url) : url).hostname);
  } catch {
    return undefined;
  }
}

/** Lower case, trailing dots removed. Pure. */
export const normalizeHost = (hostname: string): string => hostname.toLowerCase().replace(/\.+$/, "");

/**
 * The machine a host name reaches, as rules must compare it: an IPv4-mapped IPv6 address (`[::ffff:7f00:1]`) as its
 * IPv4 address, and every spelling of this machine's loopback (`127.0.0.1`, `127.1`, `2130706433`, `[::1]`,
 * `0.0.0.0`, `x.localhost`) as `localhost`, so `WebFetch(domain:localhost)` holds against an address spelled
 * another way. The WHATWG parser has already turned decimal, octal and hex IPv4 forms into dotted ones. Pure.
 */
export function canonicalHost(hostname: string): string {
  let h = normalizeHost(hostname);
  if (/^[0-9a-f]*:[0-9a-f:.]*$/.test(h)) h = `[${h}]`;
  const mapped = /^\[(?:0{0,4}:){0,5}:?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(h);
  if (mapped) {
    const a = Number.parseInt(mapped[1]!, 16);
    const b = Number.parseInt(mapped[2]!, 16);
    h = `${a >> 8}.${a & 255}.${b >> 8}.${b & 255}`;
  }
  const dotted = /^\[(?:0{0,4}:){0,5}:?ffff:(\d+\.\d+\.\d+\.\d+)\]$/.exec(h);
  if (dotted) h = dotted[1]!;
  if (h === "localhost" || h.endsWith(".localhost") || /^127\.\d+\.\d+\.\d+$/.test(h) || /^\[(0{0,4}:){0,7}:?0{0,3}1\]$/.test(h) || h === "0.0.0.0" || h === "[::]") return "localhost";
  if (h === "localhost.localdomain" || h === "ip6-localhost" || h === "ip6-loopback") return "localhost";
  return h;
}
