import { existsSync, readFileSync } from "node:fs";
import { z } from "zod";
import { defineTool } from "../define-tool.ts";
import { INPUT_SCHEMAS } from "../input-schemas.ts";
import description from "./exit-plan-mode.md" with { type: "text" };

// contracts §7.2 ExitPlanMode: 1.0.x sends `plan`; 2.1.x sends nothing and the host supplies the plan file.
const input = () => z.object({
  plan: z.string().optional().describe("The plan, in markdown"),
});

/**
 * Presents the plan. Records it as `session.presentedPlan` so the loop can end a plan-mode run with it.
 * Without `plan` input, reads the file named by `session.planFilePath` if any.
 */
export const exitPlanModeTool = defineTool({
  name: "ExitPlanMode",
  description,
  input,
  jsonSchema: INPUT_SCHEMAS.ExitPlanMode,
  readOnly: true,
  concurrencySafe: false,
  execute({ plan }, ctx) {
    const filePath = ctx.session.planFilePath;
    let text = plan;
    if (text === undefined && typeof filePath === "string" && existsSync(filePath)) text = readFileSync(filePath, "utf8");
    if (!text?.trim()) {
      return {
        content: "There is no plan to present. Call ExitPlanMode again with `plan` set to your plan in markdown.",
        isError: true,
      };
    }
    ctx.session.presentedPlan = text;
    return {
      content: "The plan was presented to the user. Do not start changing anything until the user has approved it.",
      details: typeof filePath === "string" ? { plan: text, planFilePath: filePath } : { plan: text },
    };
  },
});
