import { z } from "zod";
import { defineTool } from "../define-tool.ts";
import { INPUT_SCHEMAS } from "../input-schemas.ts";
import type { ToolContext } from "../types.ts";
import description from "./ask-user-question.md" with { type: "text" };

// contracts §7.2 AskUserQuestion.
const option = () => z.object({
  label: z.string().min(1).describe("The choice as shown to the user (1-5 words)"),
  description: z.string().describe("What choosing it means"),
  preview: z.string().optional(),
});
const question = () => z.object({
  question: z.string().min(1).describe("The full question, ending with a question mark"),
  header: z.string().min(1).max(12).describe("A short tag shown with the question, at most 12 characters"),
  options: z.array(option()).min(2).max(4),
  multiSelect: z.boolean().describe("true when several options may be chosen"),
});
const input = () => z.object({
  questions: z.array(question()).min(1).max(4),
  answers: z
    .record(z.string(), z.string())
    .optional()
    .describe("Filled in by the host: question text to chosen label(s), comma-joined"),
  annotations: z.unknown().optional(),
  metadata: z.unknown().optional(),
});

export type Question = z.infer<ReturnType<typeof question>>;

/**
 * What a UI puts in `session.prompter` to answer questions. `askQuestions` resolves to
 * question text → chosen label(s), comma-joined, or undefined when the user dismissed the questions.
 * It may reject; the rejection becomes an is_error result.
 */
export type QuestionPrompter = {
  askQuestions(questions: Question[], signal: AbortSignal): Promise<Record<string, string> | undefined>;
};

function prompterOf(ctx: ToolContext): QuestionPrompter | undefined {
  const p = ctx.session.prompter as Partial<QuestionPrompter> | undefined;
  return p && typeof p.askQuestions === "function" ? (p as QuestionPrompter) : undefined;
}

function answered(questions: Question[], answers: Record<string, string>) {
  const lines = questions.map((q) => `- "${q.question}" → ${answers[q.question] ?? "(no answer)"}`);
  return {
    content: `The user answered:\n${lines.join("\n")}\nContinue with these answers.`,
    details: { questions, answers },
  };
}

/** Asks the user multiple-choice questions; headless runs get an instruction to proceed on assumptions. */
export const askUserQuestionTool = defineTool({
  name: "AskUserQuestion",
  description,
  input,
  jsonSchema: INPUT_SCHEMAS.AskUserQuestion,
  readOnly: true,
  concurrencySafe: false,
  async execute({ questions, answers }, ctx) {
    if (answers && Object.keys(answers).length) return answered(questions, answers);
    const prompter = prompterOf(ctx);
    if (!prompter) {
      return {
        content:
          "No user is present to answer questions in this session (it runs non-interactively). Do not ask again: choose the most reasonable option for each question yourself, state the assumption you made in your reply, and continue.",
        isError: true,
        details: { questions, answers: {} },
      };
    }
    const got = await prompter.askQuestions(questions, ctx.signal);
    if (!got) {
      return {
        content: "The user dismissed the questions without answering. Proceed with your best judgement, or ask in plain text if you cannot.",
        isError: true,
        details: { questions, answers: {} },
      };
    }
    return answered(questions, got);
  },
});
