/**
 * A post-link step of build.ts for Linux binaries (issue 21 point 4, binary ≤ 110 MiB): Bun 1.4.5's `--compile` puts the
 * program (its `.bun` section) at a virtual address past the runtime's `.bss`, and grows the writable PT_LOAD segment
 * over both, so the file stores the runtime's zero-initialised `.bss` as ~1.8 MB of zeros. This gives the `.bun` data a
 * PT_LOAD segment of its own at the same virtual address, ends the writable segment's file data where `.bss` begins (the
 * kernel zero-fills it, as for any ELF), and moves the rest of the file down. Every virtual address stays as it was: the
 * runtime finds its program through a pointer (the original `.bun` slot), never through a file offset.
 *
 * The segment slot comes from PT_NOTE (the build-id and ABI notes stay as sections; neither the kernel nor the dynamic
 * loader needs that program header for a program like this). Anything that does not look exactly like that layout is
 * left untouched, with the reason: see `shrinkElf`. Pure over bytes; build.ts runs the result before it keeps it.
 */

import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";

const PT_LOAD = 1;
const PT_NOTE = 4;
const SHT_NOBITS = 8;

type Phdr = { type: number; flags: number; offset: bigint; vaddr: bigint; paddr: bigint; filesz: bigint; memsz: bigint; align: bigint };
type Shdr = { at: number; name: string; type: number; addr: bigint; offset: bigint; size: bigint };

/** The smaller file, or why the input was left as it is. */
export type ShrinkResult = { ok: true; bytes: Uint8Array; saved: number } | { ok: false; reason: string };

export function shrinkElf(input: Uint8Array): ShrinkResult {
  const no = (reason: string): ShrinkResult => ({ ok: false, reason });
  if (input.length < 64 || input[0] !== 0x7f || input[1] !== 0x45 || input[2] !== 0x4c || input[3] !== 0x46) return no("not an ELF file");
  if (input[4] !== 2 || input[5] !== 1) return no("not a 64-bit little-endian ELF file");
  const v = new DataView(input.buffer, input.byteOffset, input.byteLength);
  const phoff = Number(v.getBigUint64(0x20, true));
  const shoff = v.getBigUint64(0x28, true);
  const phentsize = v.getUint16(0x36, true);
  const phnum = v.getUint16(0x38, true);
  const shentsize = v.getUint16(0x3a, true);
  const shnum = v.getUint16(0x3c, true);
  const shstrndx = v.getUint16(0x3e, true);
  if (phentsize !== 56 || shentsize !== 64 || Number(shoff) + shnum * 64 > input.length) return no("unexpected ELF header sizes");

  const phdrs: Phdr[] = [];
  for (let i = 0; i < phnum; i++) {
    const o = phoff + i * 56;
    phdrs.push({
      type: v.getUint32(o, true),
      flags: v.getUint32(o + 4, true),
      offset: v.getBigUint64(o + 8, true),
      vaddr: v.getBigUint64(o + 16, true),
      paddr: v.getBigUint64(o + 24, true),
      filesz: v.getBigUint64(o + 32, true),
      memsz: v.getBigUint64(o + 40, true),
      align: v.getBigUint64(o + 48, true),
    });
  }
  const strOff = Number(v.getBigUint64(Number(shoff) + shstrndx * 64 + 24, true));
  const nameAt = (n: number) => {
    let end = strOff + n;
    while (end < input.length && input[end] !== 0) end++;
    return new TextDecoder().decode(input.subarray(strOff + n, end));
  };
  const shdrs: Shdr[] = [];
  for (let i = 0; i < shnum; i++) {
    const o = Number(shoff) + i * 64;
    shdrs.push({ at: o, name: nameAt(v.getUint32(o, true)), type: v.getUint32(o + 4, true), addr: v.getBigUint64(o + 16, true), offset: v.getBigUint64(o + 24, true), size: v.getBigUint64(o + 32, true) });
  }

  const bun = shdrs.find((s) => s.name === ".bun");
  const bss = shdrs.find((s) => s.name === ".bss" && s.type === SHT_NOBITS);
  if (!bun || bun.size <= 8n) return no("no embedded program (.bun section)");
  if (!bss) return no("no .bss section");
  const loads = phdrs.filter((p) => p.type === PT_LOAD);
  // The largest page the binary is linked for (its PT_LOADs' p_align): 4 KiB on x64, 64 KiB on arm64, whose kernels may
  // run 16 or 64 KiB pages, where a segment's file offset and address must agree modulo the page or exec fails.
  const PAGE = Number(loads.reduce((a, p) => (p.align > a ? p.align : a), 0x1000n));
  const seg = loads.reduce((a, b) => (b.vaddr > a.vaddr ? b : a));
  const bssEnd = bss.addr + bss.size;
  const segEnd = seg.vaddr + seg.memsz;
  if (!(seg.flags & 2) || seg.filesz !== seg.memsz) return no("the last segment is not a writable one stored in full");
  if (!(bss.addr >= seg.vaddr && bssEnd <= bun.addr && bun.addr + bun.size <= segEnd)) return no("the last segment does not hold .bss and then .bun");
  if (bun.addr % BigInt(PAGE) !== 0n) return no(`.bun does not start on a page (${PAGE} bytes)`);
  if (shdrs.some((s) => s !== bun && s.addr > bss.addr && s.addr < segEnd)) return no("other sections between .bss and the end of the segment");
  const notes = phdrs.filter((p) => p.type === PT_NOTE);
  if (notes.length !== 1) return no(`${notes.length} PT_NOTE program headers, expected 1`);

  const bssOff = Number(seg.offset + (bss.addr - seg.vaddr));
  const oldBunOff = Number(seg.offset + (bun.addr - seg.vaddr));
  const newBunOff = Math.ceil(bssOff / PAGE) * PAGE;
  if (newBunOff >= oldBunOff) return no("nothing to save");
  for (let i = bssOff; i < oldBunOff; i++) if (input[i] !== 0) return no("the stored .bss is not all zeros");
  const delta = oldBunOff - newBunOff;
  if (Number(seg.offset + seg.filesz) > input.length) return no("the segment runs past the end of the file");
  // Sections the file holds after the program (symbols, names): they move down with it; none may sit in between.
  if (shdrs.some((s) => s.type !== SHT_NOBITS && s.size > 0n && s.offset >= BigInt(bssOff) && s.offset < BigInt(oldBunOff))) return no("file data between .bss and .bun");
  if (phdrs.some((p) => p.type !== PT_LOAD && p.type !== PT_NOTE && p.filesz > 0n && p.offset + p.filesz > BigInt(bssOff))) return no("a program header points past .bss");

  const out = new Uint8Array(input.length - delta);
  out.set(input.subarray(0, newBunOff), 0);
  out.set(input.subarray(oldBunOff), newBunOff);
  // The zero-filled tail of the page where .bss begins is read from the file: keep it zero (it was).
  const w = new DataView(out.buffer);

  const own: Phdr = { type: PT_LOAD, flags: seg.flags, offset: BigInt(newBunOff), vaddr: bun.addr, paddr: bun.addr, filesz: segEnd - bun.addr, memsz: segEnd - bun.addr, align: BigInt(PAGE) };
  const kept: Phdr[] = [];
  for (const p of phdrs) {
    if (p.type === PT_NOTE) continue;
    if (p === seg) {
      kept.push({ ...p, filesz: BigInt(bssOff) - p.offset, memsz: bssEnd - p.vaddr }, own);
    } else kept.push(p);
  }
  kept.forEach((p, i) => {
    const o = phoff + i * 56;
    w.setUint32(o, p.type, true);
    w.setUint32(o + 4, p.flags, true);
    w.setBigUint64(o + 8, p.offset, true);
    w.setBigUint64(o + 16, p.vaddr, true);
    w.setBigUint64(o + 24, p.paddr, true);
    w.setBigUint64(o + 32, p.filesz, true);
    w.setBigUint64(o + 40, p.memsz, true);
    w.setBigUint64(o + 48, p.align, true);
  });

  const newShoff = shoff >= BigInt(oldBunOff) ? shoff - BigInt(delta) : shoff;
  w.setBigUint64(0x28, newShoff, true);
  for (const s of shdrs) {
    if (s.type === SHT_NOBITS || s.offset < BigInt(oldBunOff)) continue;
    w.setBigUint64(Number(newShoff) + (s.at - Number(shoff)) + 24, s.offset - BigInt(delta), true);
  }
  return { ok: true, bytes: out, saved: delta };
}

/**
 * `shrinkElf` applied to the binary at `path`, kept only when the result still runs: both binaries must print the same
 * `--version` line here. A binary this machine cannot run (another CPU) is left as built. Returns what happened, for the
 * build's log; never throws for the binary's sake.
 */
export function shrinkBinary(path: string): string {
  const version = (p: string) => {
    try {
      const r = Bun.spawnSync([p, "--version"], { stdout: "pipe", stderr: "pipe", env: {}, timeout: 60_000 });
      return r.exitCode === 0 ? r.stdout.toString() : null;
    } catch {
      return null;
    }
  };
  const r = shrinkElf(new Uint8Array(readFileSync(path)));
  if (!r.ok) return `kept as built (${r.reason})`;
  const before = version(path);
  if (!before) return "kept as built (it does not run on this machine, so the smaller one could not be checked)";
  const tmp = `${path}.shrunk`;
  writeFileSync(tmp, r.bytes, { mode: 0o755 });
  if (version(tmp) !== before) {
    rmSync(tmp, { force: true });
    return "kept as built (the smaller one did not print the same --version)";
  }
  renameSync(tmp, path);
  return `${(r.saved / 1048576).toFixed(1)} MiB of stored zeros (.bss) left out`;
}
