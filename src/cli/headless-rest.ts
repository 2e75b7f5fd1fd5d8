import "../util/zod-setup.ts"; // first: zod reads the setting as each schema is made

// What `yoke -p` loads after its prelude (headless.ts): one module, so the binary splits it into as few chunks as it
// can (every chunk a start loads costs it memory, issue 21). The stream-json host's side is headless-stream.ts.
export { compose } from "./compose.ts";
export { builtinTools } from "./builtin-tools.ts";
export { runPrint } from "./print-mode.ts";
