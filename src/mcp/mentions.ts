/**
 * The shapes of user input an MCP server can rewrite (issue 13 point 5; prompts.ts expands them): a line starting
 * with `/mcp__<server>__<prompt>`, and `@server:uri` resource mentions. Kept apart from prompts.ts so a caller that
 * only asks whether a prompt could change (early-submit.ts, before the MCP client loads) loads nothing else.
 */
export const MCP_PROMPT_COMMAND = /^\/(mcp__\S+)(?:\s+([\s\S]*))?$/;
export const MCP_RESOURCE_MENTION = /(?:^|\s)@([A-Za-z0-9_.-]+):(\S+)/g;

/** Whether an MCP server could rewrite this prompt (a `/` command or an `@server:uri` mention in it). */
export const mayExpandMcpInput = (text: string): boolean => MCP_PROMPT_COMMAND.test(text.trim()) || new RegExp(MCP_RESOURCE_MENTION.source).test(text);
