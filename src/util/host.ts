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
