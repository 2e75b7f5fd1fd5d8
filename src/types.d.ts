// Tool descriptions live in .md files beside each tool and are imported as text.
declare module "*.md" {
  const text: string;
  export default text;
}

// The sandbox's helper binaries are embedded in the compiled binary as files (src/sandbox/helpers.ts).
declare module "*/apply-seccomp" {
  const path: string;
  export default path;
}
declare module "*.jar" {
  const path: string;
  export default path;
}
