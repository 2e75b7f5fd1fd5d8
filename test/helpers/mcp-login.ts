import { expect } from "bun:test";
import { yokeBin } from "./binary.ts";

/**
 * `yoke mcp login NAME --no-browser`, with the test playing the browser: it follows the authorization URL yoke prints
 * (the OAuth fixture approves at once) and finishes either by loading the callback URL the fixture redirects to, or by
 * pasting it into yoke's prompt (after one line that is not a URL, which yoke must ask again for).
 */
export async function playMcpLogin(
  at: { cwd: string; env: Record<string, string> },
  name: string,
  finish: "callback" | "paste" = "callback",
): Promise<{ code: number; out: string; err: string }> {
  const p = Bun.spawn([yokeBin(), "mcp", "login", name, "--no-browser"], { cwd: at.cwd, env: at.env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const reader = p.stdout.getReader();
  const decoder = new TextDecoder();
  let out = "";
  let url: RegExpExecArray | null = null;
  while (!(url = /http:\/\/127\.0\.0\.1:\d+\/authorize\S+/.exec(out))) {
    const { value, done } = await reader.read();
    if (done) break;
    out += decoder.decode(value, { stream: true });
  }
  if (url) {
    const res = await fetch(url[0], { redirect: "manual" });
    const location = res.headers.get("location")!;
    expect(location).toMatch(/^http:\/\/localhost:\d+\/callback\?code=/);
    if (finish === "paste") {
      p.stdin.write(`not a url\n${location}\n`);
      await p.stdin.flush();
    } else expect((await fetch(location)).status).toBe(200);
  }
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    out += decoder.decode(value, { stream: true });
  }
  out += decoder.decode();
  const code = await p.exited;
  return { code, out, err: await new Response(p.stderr).text() };
}
