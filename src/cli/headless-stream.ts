import "../util/zod-setup.ts"; // first: zod reads the setting as each schema is made

// What `yoke -p --input-format stream-json` loads besides headless-rest.ts: the control channel on stdin and the host's
// requests (contracts §4.6–4.7). Apart, so a prompt-only run does not load it (issue 21).
export { stdinSession } from "./stdin.ts";
export { attachHost } from "./control/host.ts";
export { applyInitialize, readInitialize } from "./control/initialize.ts";
