/**
 * The trust store: `<yoke dir>/trust.json`, one record per trusted folder (its real path) with the manifest it
 * was trusted with. Written through a temp file and rename, mode 0600. The yoke dir comes from the
 * environment yoke was started with, never from settings `env` (a project cannot point us at its own store).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { yokeDir } from "../config/paths.ts";
import { parseJsonWithLocation } from "../util/json-error.ts";
import type { ManifestEntry } from "./manifest.ts";

export type TrustRecord = { trustedAt: string; files: ManifestEntry[] };
export type TrustStore = { version: 1; folders: Record<string, TrustRecord> };

export class TrustStoreError extends Error {}

export const trustStorePath = (env: Record<string, string | undefined> = process.env): string => join(yokeDir(env as NodeJS.ProcessEnv), "trust.json");

/** The folder as the store keys it: absolute, symlinks resolved (a folder reached through a link is the same folder). */
export function trustKey(folder: string): string {
  const abs = resolve(folder);
  try {
    return realpathSync(abs);
  } catch {
    return abs;
  }
}

const isEntry = (e: unknown): e is ManifestEntry =>
  !!e && typeof e === "object" && typeof (e as ManifestEntry).path === "string" && typeof (e as ManifestEntry).sha256 === "string";

/** Reads the store; a missing file is an empty store. Throws TrustStoreError naming the file (and line) when it is broken. */
export function readTrustStore(path: string): TrustStore {
  if (!existsSync(path)) return { version: 1, folders: {} };
  let raw: unknown;
  try {
    raw = parseJsonWithLocation(readFileSync(path, "utf8"), path);
  } catch (e) {
    throw new TrustStoreError((e as Error).message);
  }
  const folders = (raw as { folders?: unknown })?.folders;
  if (!raw || typeof raw !== "object" || !folders || typeof folders !== "object" || Array.isArray(folders))
    throw new TrustStoreError(`${path}: field "folders" must be an object of trusted folders`);
  const out: TrustStore = { version: 1, folders: {} };
  for (const [k, v] of Object.entries(folders as Record<string, unknown>)) {
    const files = (v as { files?: unknown })?.files;
    if (!Array.isArray(files) || !files.every(isEntry)) throw new TrustStoreError(`${path}: field "folders.${k}.files" must be a list of {path, kind, sha256}`);
    out.folders[k] = { trustedAt: String((v as { trustedAt?: unknown }).trustedAt ?? ""), files };
  }
  return out;
}

/** Writes the store atomically. Throws TrustStoreError naming the file when it cannot be written. */
export function writeTrustStore(path: string, store: TrustStore): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(store, null, 2)}\n`, { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, path);
  } catch (e) {
    throw new TrustStoreError(`${path}: cannot write the trust store: ${(e as Error).message}`);
  }
}

/** Records (or re-records) trust for a folder with its current manifest. Throws TrustStoreError. */
export function recordTrust(path: string, folder: string, files: ManifestEntry[], now = new Date()): TrustRecord {
  const store = readTrustStore(path);
  const rec: TrustRecord = { trustedAt: now.toISOString(), files };
  store.folders[trustKey(folder)] = rec;
  writeTrustStore(path, store);
  return rec;
}

/** Removes a folder's trust. Returns false when it was not trusted. Throws TrustStoreError. */
export function revokeTrust(path: string, folder: string): boolean {
  const store = readTrustStore(path);
  const key = trustKey(folder);
  if (!store.folders[key]) return false;
  delete store.folders[key];
  writeTrustStore(path, store);
  return true;
}
