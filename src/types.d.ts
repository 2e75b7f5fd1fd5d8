// Tool descriptions live in .md files beside each tool and are imported as text.
declare module "*.md" {
  const text: string;
  export default text;
}
