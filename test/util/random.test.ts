// src/util/random.ts stands in for node:crypto on the start path (issue 21): same outputs.
import { expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { randomBytes, randomUUID, sha256Hex } from "../../src/util/random.ts";

test("randomUUID: RFC 4122 version 4, a new one each call", () => {
  const a = randomUUID();
  expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(randomUUID()).not.toBe(a);
});

test("randomBytes: a Buffer of n bytes (0 too), encodable as node's was", () => {
  expect(randomBytes(8)).toBeInstanceOf(Buffer);
  expect(randomBytes(8).toString("hex")).toMatch(/^[0-9a-f]{16}$/);
  expect(randomBytes(32).toString("base64url")).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(randomBytes(0).length).toBe(0);
  expect(randomBytes(4).equals(randomBytes(4))).toBe(false);
});

test("sha256Hex: node:crypto's lowercase hex digest, for text (UTF-8), bytes and the empty input", () => {
  const node = (d: string | Uint8Array) => createHash("sha256").update(d).digest("hex");
  expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  for (const d of ["", "héllo ✓", new Uint8Array([0, 255, 7]), Buffer.from("buffer")]) expect(sha256Hex(d)).toBe(node(d));
});
