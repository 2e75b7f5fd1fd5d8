import { declarationOf } from "../../src/tool/declarations.ts";
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { QuestionPrompter } from "../../src/tool/builtin/ask-user-question.ts";
import {
  askUserQuestionTool,
  exitPlanModeTool,
  shellTools,
  todoWriteTool,
} from "../../src/tool/builtin/shell-tools.ts";
import { makeShellCtx } from "./shell-ctx.ts";

const text = (r: { content: unknown }) => r.content as string;
const q = (over: Record<string, unknown> = {}) => ({
  question: "Which database should we use?",
  header: "Database",
  options: [
    { label: "Postgres", description: "Relational, already in docker-compose" },
    { label: "SQLite", description: "File based, no server" },
  ],
  multiSelect: false,
  ...over,
});

describe("shellTools", () => {
  test("exports the six tools with their contract names (contracts §7.1, §7.2)", () => {
    expect(shellTools.map((t) => t.name)).toEqual(["Bash", "BashOutput", "TaskStop", "TodoWrite", "AskUserQuestion", "ExitPlanMode"]);
    const bash = shellTools[0]!;
    expect(bash.jsonSchema.required).toEqual(["command"]);
    // contracts §7.2: dangerouslyDisableSandbox is one of Bash's inputs (sandbox.allowUnsandboxedCommands).
    expect(Object.keys(bash.jsonSchema.properties as object)).toEqual(["command", "timeout", "description", "run_in_background", "dangerouslyDisableSandbox"]);
    expect(bash.readOnly).toBe(false);
    expect(bash.concurrencySafe).toBe(false);
    expect(declarationOf(bash).ruleTarget).toEqual({ kind: "command", field: "command" });
    for (const t of shellTools) expect(t.description.length).toBeGreaterThan(100);
  });
});

describe("TodoWrite (contracts §7.2)", () => {
  test("replaces the session todos and reports old and new", async () => {
    const { ctx } = makeShellCtx();
    const first = [{ content: "Write tests", status: "in_progress", activeForm: "Writing tests" }];
    const r1 = await todoWriteTool.run({ todos: first }, ctx);
    expect(r1.isError).toBeFalsy();
    expect(ctx.session.todos).toEqual(first);
    expect(r1.details).toEqual({ oldTodos: [], newTodos: first });
    expect(text(r1)).toContain("Keep it current");
    const second = [
      { content: "Write tests", status: "completed", activeForm: "Writing tests" },
      { content: "Fix bug", status: "pending", activeForm: "Fixing bug" },
    ];
    const r2 = await todoWriteTool.run({ todos: second }, ctx);
    expect(r2.details).toEqual({ oldTodos: first, newTodos: second });
    expect(text(r2)).toContain("2 items, 1 still open");
    expect(ctx.session.todos).toEqual(second);
    expect(todoWriteTool.readOnly).toBe(true);
  });

  test("a bad status is rejected and the list is unchanged", async () => {
    const { ctx } = makeShellCtx();
    const r = await todoWriteTool.run({ todos: [{ content: "x", status: "done", activeForm: "x-ing" }] }, ctx);
    expect(r.isError).toBe(true);
    expect(text(r)).toContain("todos.0.status");
    expect(ctx.session.todos).toEqual([]);
  });
});

describe("AskUserQuestion (contracts §7.2)", () => {
  test("headless: is_error telling the model to assume and say so", async () => {
    const { ctx } = makeShellCtx();
    const r = await askUserQuestionTool.run({ questions: [q()] }, ctx);
    expect(r.isError).toBe(true);
    expect(text(r)).toContain("No user is present");
    expect(text(r)).toContain("assumption");
  });

  test("answers supplied through updatedInput are returned", async () => {
    const { ctx } = makeShellCtx();
    const r = await askUserQuestionTool.run({ questions: [q()], answers: { "Which database should we use?": "SQLite" } }, ctx);
    expect(r.isError).toBeFalsy();
    expect(text(r)).toContain('"Which database should we use?" → SQLite');
    expect(r.details).toMatchObject({ answers: { "Which database should we use?": "SQLite" } });
  });

  test("a prompter in the session bag is asked", async () => {
    const { ctx } = makeShellCtx();
    const seen: string[] = [];
    const prompter: QuestionPrompter = {
      async askQuestions(questions) {
        seen.push(...questions.map((x) => x.header));
        return { [questions[0]!.question]: "Postgres, SQLite" };
      },
    };
    ctx.session.prompter = prompter;
    const r = await askUserQuestionTool.run({ questions: [q({ multiSelect: true })] }, ctx);
    expect(seen).toEqual(["Database"]);
    expect(text(r)).toContain("→ Postgres, SQLite");
  });

  test("schema limits: header ≤ 12 chars, 2-4 options, 1-4 questions", async () => {
    const { ctx } = makeShellCtx();
    const long = await askUserQuestionTool.run({ questions: [q({ header: "Thirteen chrs" })] }, ctx);
    expect(long.isError).toBe(true);
    expect(text(long)).toContain("questions.0.header");
    const one = await askUserQuestionTool.run({ questions: [q({ options: [{ label: "a", description: "b" }] })] }, ctx);
    expect(text(one)).toContain("questions.0.options");
    const five = await askUserQuestionTool.run({ questions: [q(), q(), q(), q(), q()] }, ctx);
    expect(text(five)).toContain("InputValidationError");
    const none = await askUserQuestionTool.run({ questions: [q({ multiSelect: undefined })] }, ctx);
    expect(text(none)).toContain("multiSelect");
  });
});

describe("ExitPlanMode (contracts §7.2)", () => {
  test("records the plan for the loop and returns it in details", async () => {
    const { ctx } = makeShellCtx();
    const r = await exitPlanModeTool.run({ plan: "# Plan\n1. Do it" }, ctx);
    expect(r.isError).toBeFalsy();
    expect(text(r)).toContain("presented");
    expect(r.details).toEqual({ plan: "# Plan\n1. Do it" });
    expect(ctx.session.presentedPlan).toBe("# Plan\n1. Do it");
  });

  test("2.1 style: no input, plan read from the host's plan file", async () => {
    const { ctx, root } = makeShellCtx();
    const f = join(root, "plan.md");
    writeFileSync(f, "# From file\n");
    ctx.session.planFilePath = f;
    const r = await exitPlanModeTool.run({}, ctx);
    expect(r.details).toEqual({ plan: "# From file\n", planFilePath: f });
    expect(ctx.session.presentedPlan).toBe("# From file\n");
  });

  test("no plan at all is an error asking for one", async () => {
    const { ctx } = makeShellCtx();
    const r = await exitPlanModeTool.run({}, ctx);
    expect(r.isError).toBe(true);
    expect(text(r)).toContain("`plan`");
    expect(ctx.session.presentedPlan).toBeUndefined();
  });
});
