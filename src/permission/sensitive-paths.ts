/**
 * Paths that always need the user's approval, in every mode but bypassPermissions, whatever the allow
 * rules, working directories or auto-memory folder say (contracts §3.2 protected paths, issue 16 point 10).
 * Two classes:
 * - protected (writes): files and folders whose content runs code or sets policy later: shell profiles and
 *   login scripts, git hooks and config, agent settings (`.claude`, `.yoke`, `.mcp.json`), editor and
 *   direnv startup files, and every credential store below.
 * - credential stores (reads too): ssh keys, cloud and registry tokens.
 * Matching is by path components anywhere in the path (not only under $HOME), after look-alike folding,
 * so another user's `/root/.ssh` or a HOME moved by the environment is still covered.
 */
import { sep } from "node:path";
import { foldPath } from "./paths.ts";

/** Any path with one of these folder names in it. `.claude/worktrees` is exempt (contracts §3.2). */
const PROTECTED_DIRS = new Set([".git", ".claude", ".vscode", ".idea", ".yoke", ".husky"]);

/** Files run or read as configuration when a shell, editor, git or a package tool starts. */
const PROTECTED_FILES = new Set([
  ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".bash_aliases", ".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin",
  ".zlogout", ".cshrc", ".tcshrc", ".login", ".logout", ".kshrc", ".mkshrc", ".inputrc", ".xprofile", ".xinitrc", ".xsession", ".xsessionrc",
  ".envrc", ".vimrc", ".gvimrc", ".exrc", ".mcp.json", ".claude.json", ".gitconfig", ".gitmodules", ".npmrc", ".yarnrc", ".yarnrc.yml",
  ".pypirc", ".pip.conf", ".curlrc", ".wgetrc", ".netrc", ".pgpass", ".my.cnf", ".git-credentials", ".vault-token", ".lesskey",
]);

/** Folder sequences (as path components) whose content is run at login or by tools later. */
const PROTECTED_SEQUENCES: string[][] = [
  [".config", "fish"],
  [".config", "nvim"],
  [".config", "systemd"],
  [".config", "autostart"],
  [".config", "git"],
  [".config", "pip"],
  [".local", "bin"],
];

/** Credential stores: reading them needs approval too. Component sequences, matched anywhere. */
const CREDENTIAL_SEQUENCES: string[][] = [
  [".ssh"],
  [".aws"],
  [".gnupg"],
  [".kube"],
  [".azure"],
  [".password-store"],
  [".docker", "config.json"],
  [".config", "gh"],
  [".config", "hub"],
  [".config", "gcloud"],
  [".config", "doctl"],
  [".config", "op"],
  [".config", "git", "credentials"],
  [".cargo", "credentials"],
  [".cargo", "credentials.toml"],
  [".gem", "credentials"],
  [".terraform.d", "credentials.tfrc.json"],
  [".m2", "settings.xml"],
  [".gradle", "gradle.properties"],
  [".local", "share", "keyrings"],
  [".claude", ".credentials.json"],
];

/** Credential files recognised by name wherever they are. */
const CREDENTIAL_FILES = new Set([".netrc", ".git-credentials", ".pgpass", ".vault-token", ".pypirc", ".my.cnf"]);

const partsOf = (abs: string): string[] => abs.split(sep).filter(Boolean).map(foldPath);

function hasSequence(parts: string[], seqs: string[][]): boolean {
  for (const seq of seqs)
    for (let i = 0; i + seq.length <= parts.length; i++) if (seq.every((s, j) => parts[i + j] === s)) return true;
  return false;
}

/** True for a credential store (ssh keys, cloud and registry tokens): reads and writes need approval. Pure. */
export function isCredentialPath(abs: string): boolean {
  const parts = partsOf(abs);
  return CREDENTIAL_FILES.has(parts[parts.length - 1] ?? "") || hasSequence(parts, CREDENTIAL_SEQUENCES);
}

/** True for a path never written without approval (except in bypassPermissions). Includes every credential store. Pure. */
export function isProtectedPath(abs: string): boolean {
  const parts = partsOf(abs);
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i] as string;
    if (PROTECTED_DIRS.has(p)) {
      if (p === ".claude" && parts[i + 1] === "worktrees") continue;
      return true;
    }
  }
  if (PROTECTED_FILES.has(parts[parts.length - 1] ?? "")) return true;
  return hasSequence(parts, PROTECTED_SEQUENCES) || isCredentialPath(abs);
}

/** ripgrep `--glob` exclusions keeping whole-tree searches out of credential stores (rg searches hidden files for us). Pure. */
export function credentialExcludeGlobs(): string[] {
  const out: string[] = [];
  for (const seq of CREDENTIAL_SEQUENCES) {
    const p = seq.join("/");
    out.push(seq.length === 1 ? `!${p}` : `!**/${p}`, `!**/${p}/**`);
  }
  for (const f of CREDENTIAL_FILES) out.push(`!${f}`);
  return out;
}
