/** Claude Code's size wording (2.1.332's formatFileSize): `512 bytes`, `1.5KB`, `256MB`, `2GB`. Pure. */
export function formatFileSize(n: number): string {
  const fmt = (x: number) => x.toFixed(1).replace(/\.0$/, "");
  const kb = n / 1024;
  if (kb < 1) return `${n} bytes`;
  if (kb < 1024) return `${fmt(kb)}KB`;
  const mb = kb / 1024;
  if (mb < 1024) return `${fmt(mb)}MB`;
  return `${fmt(mb / 1024)}GB`;
}
