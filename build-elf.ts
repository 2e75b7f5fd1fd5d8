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
 * left untouched, with the reason: see `shrinkElf`.
 *
 * Then `alignElf` places the large segments' file offsets for Linux's page cache (issue 21: peak RSS ≤ 50 MiB whatever
 * wrote the file), and `writeInChunks` writes the result as a copy would. Pure over bytes but for the last; build.ts
 * runs the result before it keeps it.
 */

import { closeSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";

const PT_LOAD = 1;
const PT_NOTE = 4;
const SHT_NOBITS = 8;

type Phdr = { type: number; flags: number; offset: bigint; vaddr: bigint; paddr: bigint; filesz: bigint; memsz: bigint; align: bigint };
type Shdr = { at: number; name: string; type: number; addr: bigint; offset: bigint; size: bigint };

/** The smaller file, or why the input was left as it is. */
export type ShrinkResult = { ok: true; bytes: Uint8Array; saved: number } | { ok: false; reason: string };

/** The ELF header fields the rewrites use, every program header and every section header; or why not. */
type Elf = { v: DataView; phoff: number; shoff: bigint; phdrs: Phdr[]; shdrs: Shdr[] };
function readElf(input: Uint8Array): Elf | string {
  if (input.length < 64 || input[0] !== 0x7f || input[1] !== 0x45 || input[2] !== 0x4c || input[3] !== 0x46) return "not an ELF file";
  if (input[4] !== 2 || input[5] !== 1) return "not a 64-bit little-endian ELF file";
  const v = new DataView(input.buffer, input.byteOffset, input.byteLength);
  const phoff = Number(v.getBigUint64(0x20, true));
  const shoff = v.getBigUint64(0x28, true);
  const phentsize = v.getUint16(0x36, true);
  const phnum = v.getUint16(0x38, true);
  const shentsize = v.getUint16(0x3a, true);
  const shnum = v.getUint16(0x3c, true);
  const shstrndx = v.getUint16(0x3e, true);
  if (phentsize !== 56 || shentsize !== 64 || Number(shoff) + shnum * 64 > input.length || phoff + phnum * 56 > input.length) return "unexpected ELF header sizes";

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
  return { v, phoff, shoff, phdrs, shdrs };
}

/** Writes `phdrs` as the program header table at `phoff`. */
function writePhdrs(w: DataView, phoff: number, phdrs: Phdr[]): void {
  phdrs.forEach((p, i) => {
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
}

/** The largest page the binary is linked for: its PT_LOADs' largest p_align (see shrinkElf). */
const pageOf = (loads: Phdr[]) => Number(loads.reduce((a, p) => (p.align > a ? p.align : a), 0x1000n));

export function shrinkElf(input: Uint8Array): ShrinkResult {
  const no = (reason: string): ShrinkResult => ({ ok: false, reason });
  const elf = readElf(input);
  if (typeof elf === "string") return no(elf);
  const { phoff, shoff, phdrs, shdrs } = elf;

  const bun = shdrs.find((s) => s.name === ".bun");
  const bss = shdrs.find((s) => s.name === ".bss" && s.type === SHT_NOBITS);
  if (!bun || bun.size <= 8n) return no("no embedded program (.bun section)");
  if (!bss) return no("no .bss section");
  const loads = phdrs.filter((p) => p.type === PT_LOAD);
  // The largest page the binary is linked for (its PT_LOADs' p_align): 4 KiB on x64, 64 KiB on arm64, whose kernels may
  // run 16 or 64 KiB pages, where a segment's file offset and address must agree modulo the page or exec fails.
  const PAGE = pageOf(loads);
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
  writePhdrs(w, phoff, kept);

  const newShoff = shoff >= BigInt(oldBunOff) ? shoff - BigInt(delta) : shoff;
  w.setBigUint64(0x28, newShoff, true);
  for (const s of shdrs) {
    if (s.type === SHT_NOBITS || s.offset < BigInt(oldBunOff)) continue;
    w.setBigUint64(Number(newShoff) + (s.at - Number(shoff)) + 24, s.offset - BigInt(delta), true);
  }
  return { ok: true, bytes: out, saved: delta };
}

/** The file with its segments placed for the page cache, or why it was left as it is. */
export type AlignResult = { ok: true; bytes: Uint8Array; added: number } | { ok: false; reason: string };

/** Linux's default fault-around window (fault_around_bytes): a read fault maps up to this much of the file around it. */
const FAULT_AROUND = 0x10000;
/** A PMD: a file folio this large, placed at an address this aligned, is mapped whole by one fault. */
const PMD = 0x200000;
/** Segments smaller than this are left where they are (the padding would cost more than their faults). */
const PLACED_FROM = 0x100000;

/**
 * Places each large PT_LOAD's file offset so that it agrees with its address modulo 64 KiB, and never modulo 2 MiB, by
 * inserting zeros before it (issue 21: peak RSS ≤ 50 MiB in every page-cache state). Why: Linux (6.18 here) maps a
 * whole page-cache folio on a read fault when it fits in the mapping, and how large the folios are depends on how the
 * file was written: one big write (`bun run build` did so) gives 2 MiB folios, which a segment placed at a 2 MiB
 * aligned address maps whole (the read-only data took 14 MiB instead of 5); `cp` or `cat` give 64 KiB folios, which a
 * segment whose offset and address differ by 32 KiB straddles, so each fault maps two (the code took 30 MiB instead of
 * 25). Placed this way a 64 KiB folio is exactly one fault-around window and a 2 MiB folio is never mapped whole, so
 * those states cost what a file read back from disk costs. Folios between (a writer's 128 KiB–1 MiB buffers) are
 * mapped whole wherever they sit: no placement helps them (README, Start-up).
 *
 * The first segment starts the file (it holds the ELF header): its zeros go after a copy of the header, and the
 * program headers move with it, so the header in memory still finds them at the same address. Every address stays as
 * it was; only file offsets move (program headers, section headers, the ELF header's two table offsets).
 */
export function alignElf(input: Uint8Array): AlignResult {
  const no = (reason: string): AlignResult => ({ ok: false, reason });
  const elf = readElf(input);
  if (typeof elf === "string") return no(elf);
  const { phoff, shoff, phdrs, shdrs } = elf;
  const loads = phdrs.filter((p) => p.type === PT_LOAD).sort((a, b) => Number(a.offset - b.offset));
  if (!loads.length) return no("no PT_LOAD segment");
  const PAGE = pageOf(loads);
  const unit = Math.max(PAGE, FAULT_AROUND);
  if (unit >= PMD) return no(`pages of ${PAGE} bytes`);
  const head = loads[0]!;
  if (BigInt(phoff) < head.offset || BigInt(phoff + phdrs.length * 56) > head.offset + head.filesz) return no("the first segment does not hold the program headers");

  const gaps: Array<{ at: number; size: number }> = [];
  let added = 0;
  let prevEnd = 0;
  for (const [i, p] of loads.entries()) {
    const off = Number(p.offset);
    if (p.filesz >= BigInt(PLACED_FROM)) {
      const d = Number(p.vaddr) - (off + added);
      if (d % PAGE !== 0) return no("a segment's offset and address disagree modulo the page");
      let g = ((d % unit) + unit) % unit;
      if ((d - g) % PMD === 0) g += unit;
      if (g > 0) {
        if (i === 0 && off !== 0) return no("the first segment does not start the file");
        if (i > 0 && off < prevEnd) return no("a segment shares file bytes with the one before it");
        gaps.push({ at: i === 0 ? 0 : prevEnd, size: g });
        added += g;
      }
    }
    prevEnd = Math.max(prevEnd, off + Number(p.filesz));
  }
  if (!added) return no("already placed");
  const moved = (off: bigint) => off + BigInt(gaps.filter((g) => BigInt(g.at) <= off).reduce((a, g) => a + g.size, 0));

  // What the file holds past its last segment (symbols, section names, the section header table: nothing is loaded
  // from it) moves into the zeros before the first segment when it fits, so the placement costs ~50 KiB less file.
  const tailAt = prevEnd;
  const tailLen = input.length - tailAt;
  const base = 64 + (tailAt % 64); // the same offset modulo 64: the tables' own alignment holds
  const intoHead =
    gaps[0]?.at === 0 && tailLen > 0 && base + tailLen <= gaps[0].size && !phdrs.some((p) => p.type !== PT_LOAD && p.filesz > 0n && p.offset + p.filesz > BigInt(tailAt));
  const place = (off: bigint) => (intoHead && off >= BigInt(tailAt) ? BigInt(base) + off - BigInt(tailAt) : moved(off));

  const out = new Uint8Array(input.length + added - (intoHead ? tailLen : 0));
  let from = 0;
  let to = 0;
  for (const g of gaps) {
    out.set(input.subarray(from, g.at), to);
    to += g.at - from + g.size;
    from = g.at;
  }
  out.set(input.subarray(from, intoHead ? tailAt : input.length), to);
  if (intoHead) out.set(input.subarray(tailAt), base);
  // The ELF header at the file's start (a copy stays where the first segment maps it, whose e_phoff still finds the
  // program headers in memory): its tables' offsets move.
  out.set(input.subarray(0, 64), 0);
  const w = new DataView(out.buffer);
  const newPhoff = Number(place(BigInt(phoff)));
  const newShoff = place(shoff);
  w.setBigUint64(0x20, BigInt(newPhoff), true);
  w.setBigUint64(0x28, newShoff, true);
  writePhdrs(w, newPhoff, phdrs.map((p) => (p.type === PT_LOAD || p.filesz > 0n ? { ...p, offset: place(p.offset) } : p)));
  for (const s of shdrs) if (s.offset > 0n) w.setBigUint64(Number(newShoff) + (s.at - Number(shoff)) + 24, place(s.offset), true);
  return { ok: true, bytes: out, added: out.length - input.length };
}

/**
 * Writes `bytes` to `path` 64 KiB at a time. Why not one write: Linux (6.18, ext4 here) gives a file written in one big
 * write page-cache folios of up to 2 MiB, and a start then maps whole folios (see alignElf): the binary `bun run build`
 * had just written peaked ~5–10 MiB higher than the same file copied with `cp`, whose 64 KiB writes give 64 KiB folios.
 * Written this way the build leaves the file as a download or a copy does, and the bench measures what a user meets.
 */
export function writeInChunks(path: string, bytes: Uint8Array, mode: number): void {
  const fd = openSync(path, "w", mode);
  try {
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, Math.min(FAULT_AROUND, bytes.length - at));
  } finally {
    closeSync(fd);
  }
}

/**
 * `shrinkElf` then `alignElf` applied to the binary at `path`, kept only when the result still runs: both binaries must
 * print the same `--version` line here. A binary this machine cannot run (another CPU) is left as built. Returns what
 * happened, for the build's log; never throws for the binary's sake.
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
  const input = new Uint8Array(readFileSync(path));
  const r = shrinkElf(input);
  const a = alignElf(r.ok ? r.bytes : input);
  if (!r.ok && !a.ok) return `kept as built (${r.reason}; segments: ${a.reason})`;
  const before = version(path);
  if (!before) return "kept as built (it does not run on this machine, so the smaller one could not be checked)";
  const tmp = `${path}.shrunk`;
  writeInChunks(tmp, a.ok ? a.bytes : r.ok ? r.bytes : input, 0o755);
  if (version(tmp) !== before) {
    rmSync(tmp, { force: true });
    return "kept as built (the rewritten one did not print the same --version)";
  }
  renameSync(tmp, path);
  const zeros = r.ok ? `${(r.saved / 1048576).toFixed(1)} MiB of stored zeros (.bss) left out` : `.bss kept (${r.reason})`;
  return `${zeros}; ${a.ok ? `segments placed for 64 KiB faults (+${Math.round(a.added / 1024)} KiB)` : `segments kept in place (${a.reason})`}`;
}
