// Replaced at build time by build.ts (define), read from package.json when running from source.
declare const YOKE_VERSION: string | undefined;
export const VERSION: string = typeof YOKE_VERSION === "string" ? YOKE_VERSION : "0.1.0-dev";
