/**
 * `bun run bench/binary-size.ts [--bin PATH]`: what a compiled yoke binary is made of (issue 21 point 4, ≤ 110 MiB).
 * Prints the size of the Bun runtime alone (a compiled one-line program, built here with the same Bun), the runtime's
 * `.bss` when the file stores it as zeros (build-elf.ts removes it from Linux binaries), and the embedded program split
 * into bytecode, JavaScript source and embedded files, with the largest chunks and files. Linux (ELF) binaries only;
 * default `dist/yoke`. Never a timed test: it only prints.
 *
 * The program is Bun 1.4.5's standalone module graph (the `.bun` section): a u64 length, the payload, then a table of
 * 52-byte records (name, source, source map, bytecode, module info, bytecode origin: offset and length each, and four
 * one-byte fields), an offsets record and the trailer `\n---- Bun! ----\n`. Another Bun may lay it out otherwise: then
 * this says it cannot read it.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "../test/helpers/binary.ts";

const MiB = (n: number) => `${(n / 1048576).toFixed(2)} MiB`;
const KB = (n: number) => `${(n / 1000).toFixed(0)} KB`;

type Section = { name: string; type: number; addr: bigint; offset: number; size: number };

function sections(b: Uint8Array): Section[] {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (v.getUint32(0) !== 0x7f454c46 || b[4] !== 2) throw new Error("not a 64-bit ELF file (Linux binaries only)");
  const shoff = Number(v.getBigUint64(0x28, true));
  const shnum = v.getUint16(0x3c, true);
  const strOff = Number(v.getBigUint64(shoff + v.getUint16(0x3e, true) * 64 + 24, true));
  const name = (n: number) => new TextDecoder().decode(b.subarray(strOff + n, b.indexOf(0, strOff + n)));
  return Array.from({ length: shnum }, (_, i) => {
    const o = shoff + i * 64;
    return { name: name(v.getUint32(o, true)), type: v.getUint32(o + 4, true), addr: v.getBigUint64(o + 16, true), offset: Number(v.getBigUint64(o + 24, true)), size: Number(v.getBigUint64(o + 32, true)) };
  });
}

/** Whether the file stores `.bss` as zeros: its bytes lie inside a PT_LOAD whose file size covers them. */
function storedBss(b: Uint8Array, bss: Section): number {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const phoff = Number(v.getBigUint64(0x20, true));
  for (let i = 0; i < v.getUint16(0x38, true); i++) {
    const o = phoff + i * 56;
    if (v.getUint32(o, true) !== 1) continue;
    const vaddr = v.getBigUint64(o + 16, true);
    const filesz = v.getBigUint64(o + 32, true);
    if (bss.addr >= vaddr && bss.addr + BigInt(bss.size) <= vaddr + filesz) return bss.size;
  }
  return 0;
}

type Module = { name: string; source: number; bytecodeAt: number; bytecodeEnd: number };

function graph(payload: Uint8Array): Module[] {
  const v = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  const trailer = new TextDecoder().decode(payload.subarray(payload.length - 16));
  if (trailer !== "\n---- Bun! ----\n") throw new Error("no module graph trailer: another Bun's layout?");
  const off = payload.length - 16 - 32;
  const tableAt = v.getUint32(off + 8, true);
  const tableLen = v.getUint32(off + 12, true);
  if (tableLen % 52 !== 0) throw new Error("module records are not 52 bytes: another Bun's layout?");
  return Array.from({ length: tableLen / 52 }, (_, i) => {
    const r = tableAt + i * 52;
    const u = (k: number) => v.getUint32(r + k * 4, true);
    const name = new TextDecoder().decode(payload.subarray(u(0), u(0) + u(1)));
    return { name: name.replace(/^\/\$bunfs\/root\//, ""), source: u(3), bytecodeAt: u(6), bytecodeEnd: u(7) ? u(6) + u(7) : 0 };
  });
}

/** A compiled console.log: its size, the .bss zeros it stores, and its (tiny) .bun section. */
async function runtimeSize(): Promise<{ size: number; zeros: number; program: number }> {
  const dir = mkdtempSync(join(tmpdir(), "yoke-size-"));
  try {
    writeFileSync(join(dir, "hello.ts"), 'console.log("hello");\n');
    const r = await Bun.build({ entrypoints: [join(dir, "hello.ts")], compile: { outfile: join(dir, "hello") } });
    if (!r.success) throw new Error(r.logs.map(String).join("\n"));
    const b = new Uint8Array(readFileSync(join(dir, "hello")));
    const secs = sections(b);
    const bss = secs.find((s) => s.name === ".bss");
    return { size: statSync(join(dir, "hello")).size, zeros: bss ? storedBss(b, bss) : 0, program: secs.find((s) => s.name === ".bun")?.size ?? 0 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const i = process.argv.indexOf("--bin");
  const bin = i > 0 ? process.argv[i + 1]! : join(repoRoot(), "dist", "yoke");
  const b = new Uint8Array(readFileSync(bin));
  const secs = sections(b);
  const bun = secs.find((s) => s.name === ".bun");
  const bss = secs.find((s) => s.name === ".bss");
  if (!bun || bun.size <= 8) throw new Error(`${bin}: no embedded program (.bun section)`);
  // The section: a u64 length, then the payload.
  const payload = b.subarray(bun.offset + 8, bun.offset + 8 + Number(new DataView(b.buffer, b.byteOffset).getBigUint64(bun.offset, true)));
  const mods = graph(payload);
  const code = mods.filter((m) => m.bytecodeEnd > 0);
  const files = mods.filter((m) => m.bytecodeEnd === 0);
  const bytecode = Math.max(...code.map((m) => m.bytecodeEnd));
  const source = code.reduce((s, m) => s + m.source, 0);
  const fileBytes = files.reduce((s, m) => s + m.source, 0);
  const runtime = await runtimeSize();
  const zeros = bss ? storedBss(b, bss) : 0;
  console.log(`${bin}: ${MiB(b.length)}`);
  const bare = runtime.size - runtime.zeros - runtime.program;
  console.log(`- Bun ${Bun.version} runtime: ${MiB(bare)} (a compiled console.log is ${MiB(runtime.size)}: ${MiB(runtime.zeros)} of it are its .bss stored as zeros)`);
  console.log(`- .bss stored as zeros in this file: ${zeros ? MiB(zeros) : "none (build-elf.ts left them out)"}`);
  console.log(`- embedded program (.bun): ${MiB(bun.size)} = bytecode ${MiB(bytecode)} + JavaScript source ${MiB(source)} (${code.length} modules) + files ${MiB(fileBytes)} (${files.length}) + tables ${KB(bun.size - bytecode - source - fileBytes)}`);
  console.log(`- the rest (page alignment, segments placed for the page cache by build-elf.ts): ${KB(b.length - bare - zeros - bun.size)}`);
  console.log("\nlargest modules by source (bytecode is laid out by the profile, so not split per module):");
  for (const m of [...code].sort((x, y) => y.source - x.source).slice(0, 10)) console.log(`  ${KB(m.source).padStart(7)}  ${m.name}`);
  console.log("\nlargest embedded files:");
  for (const m of [...files].sort((x, y) => y.source - x.source).slice(0, 8)) console.log(`  ${KB(m.source).padStart(7)}  ${m.name}`);
}

await main();
