import type { Tool } from "../types.ts";
import { askUserQuestionTool } from "./ask-user-question.ts";
import { bashOutputTool } from "./bash-output.ts";
import { bashTool } from "./bash.ts";
import { exitPlanModeTool } from "./exit-plan-mode.ts";
import { killShellTool } from "./kill-shell.ts";
import { todoWriteTool } from "./todo-write.ts";

export { killAllBackgroundShells } from "./background-shells.ts";
export { askUserQuestionTool, bashOutputTool, bashTool, exitPlanModeTool, killShellTool, todoWriteTool };
export type { QuestionPrompter } from "./ask-user-question.ts";

/** Bash, BashOutput, KillShell (alias TaskStop), TodoWrite, AskUserQuestion, ExitPlanMode. */
export const shellTools: Tool[] = [bashTool, bashOutputTool, killShellTool, todoWriteTool, askUserQuestionTool, exitPlanModeTool];
