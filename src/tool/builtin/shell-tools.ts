import type { Tool } from "../types.ts";
import { askUserQuestionTool } from "./ask-user-question.ts";
import { bashOutputTool } from "./bash-output.ts";
import { bashTool } from "./bash.ts";
import { exitPlanModeTool } from "./exit-plan-mode.ts";
import { taskStopTool } from "./task-stop.ts";
import { todoWriteTool } from "./todo-write.ts";

export { killAllBackgroundShells } from "./background-shells.ts";
export { removeSessionTempDir } from "./shell-exec.ts";
export { askUserQuestionTool, bashOutputTool, bashTool, exitPlanModeTool, taskStopTool, todoWriteTool };
export type { QuestionPrompter } from "./ask-user-question.ts";

/** Bash, BashOutput, TaskStop (alias KillShell), TodoWrite, AskUserQuestion, ExitPlanMode. */
export const shellTools: Tool[] = [bashTool, bashOutputTool, taskStopTool, todoWriteTool, askUserQuestionTool, exitPlanModeTool];
