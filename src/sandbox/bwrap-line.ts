/**
 * Reading back the bubblewrap command line the sandbox library builds: its words, and the places it
 * mounts over. bubblewrap makes an empty file or folder on the host for each mount target that does not
 * exist (a "ghost"); the library removes them after each command, and so must yoke when it runs a line
 * again without the library. Pure.
 */

/** The words of a POSIX shell command line made of quoted and escaped words only; undefined for anything else. */
export function shellWords(line: string): string[] | undefined {
  const words: string[] = [];
  let cur = "";
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === " " || c === "\t") {
      if (inWord) words.push(cur);
      cur = "";
      inWord = false;
      continue;
    }
    inWord = true;
    if (c === "\\") {
      if (i + 1 >= line.length) return undefined;
      cur += line[++i];
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) return undefined;
      cur += line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === "\\" && j + 1 < line.length && '$`"\\\n'.includes(line[j + 1]!)) cur += line[++j];
        else cur += line[j];
      }
      if (j >= line.length) return undefined;
      i = j;
    } else if ("|&;<>()$`*?[\n".includes(c) || ((c === "#" || c === "~") && cur === "")) {
      // An operator, an expansion or a comment: not a plain list of words.
      return undefined;
    } else cur += c;
  }
  if (inWord) words.push(cur);
  return words;
}

/** bubblewrap options and how many arguments each takes; a target is the last argument of the mounting ones. */
const ARGS: Record<string, number> = {
  "--bind": 2, "--bind-try": 2, "--dev-bind": 2, "--dev-bind-try": 2, "--ro-bind": 2, "--ro-bind-try": 2,
  "--symlink": 2, "--file": 2, "--bind-data": 2, "--ro-bind-data": 2, "--chmod": 2, "--setenv": 2,
  "--tmpfs": 1, "--dir": 1, "--dev": 1, "--proc": 1, "--mqueue": 1, "--remount-ro": 1,
  "--unsetenv": 1, "--perms": 1, "--size": 1, "--uid": 1, "--gid": 1, "--hostname": 1, "--chdir": 1,
  "--cap-add": 1, "--cap-drop": 1, "--lock-file": 1, "--sync-fd": 1, "--info-fd": 1, "--json-status-fd": 1,
  "--block-fd": 1, "--userns-block-fd": 1, "--seccomp": 1, "--add-seccomp-fd": 1, "--exec-label": 1,
  "--file-label": 1, "--argv0": 1, "--userns": 1, "--userns2": 1, "--pidns": 1,
  "--unshare-all": 0, "--share-net": 0, "--unshare-user": 0, "--unshare-user-try": 0, "--unshare-ipc": 0,
  "--unshare-pid": 0, "--unshare-net": 0, "--unshare-uts": 0, "--unshare-cgroup": 0, "--unshare-cgroup-try": 0,
  "--die-with-parent": 0, "--new-session": 0, "--as-pid-1": 0, "--clearenv": 0, "--disable-userns": 0,
  "--assert-userns-disabled": 0,
};
const MOUNTS = new Set(["--bind", "--bind-try", "--dev-bind", "--dev-bind-try", "--ro-bind", "--ro-bind-try", "--symlink", "--file", "--bind-data", "--ro-bind-data", "--tmpfs", "--dir"]);

/**
 * The mount targets of a bubblewrap line (`bwrap` first, options, `--`, the command), in order.
 * Undefined when the line is not one bubblewrap call with options yoke knows (then it is not reused).
 */
export function mountTargets(line: string, bwrap: string): string[] | undefined {
  const words = shellWords(line);
  if (!words || words[0] !== bwrap) return undefined;
  const out: string[] = [];
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (w === "--") return out;
    const n = ARGS[w];
    if (n === undefined || i + n >= words.length) return undefined;
    if (MOUNTS.has(w)) out.push(words[i + n]!);
    i += n;
  }
  return undefined;
}
