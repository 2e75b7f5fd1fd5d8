import { z } from "zod";
import { defineTool } from "../define-tool.ts";
import { INPUT_SCHEMAS } from "../input-schemas.ts";
import description from "./todo-write.md" with { type: "text" };

// contracts §7.2 TodoWrite.
const todo = () => z.object({
  content: z.string().min(1).describe("The task, in imperative form (\"Run the tests\")"),
  status: z.enum(["pending", "in_progress", "completed"]),
  activeForm: z.string().min(1).describe("The task in present continuous form, shown while it runs (\"Running the tests\")"),
});
const input = () => z.object({ todos: z.array(todo()).describe("The complete, updated list") });

export type Todo = z.infer<ReturnType<typeof todo>>;

/** Replaces the session's todo list. details: `{ oldTodos, newTodos }`. */
export const todoWriteTool = defineTool({
  name: "TodoWrite",
  description,
  input,
  jsonSchema: INPUT_SCHEMAS.TodoWrite,
  readOnly: true,
  concurrencySafe: false,
  execute({ todos }, ctx) {
    const oldTodos = ctx.session.todos;
    const newTodos = todos.map((t) => ({ ...t }));
    ctx.session.todos = newTodos;
    const open = newTodos.filter((t) => t.status !== "completed").length;
    const text =
      newTodos.length === 0
        ? "The todo list is now empty."
        : `Todo list saved (${newTodos.length} items, ${open} still open). Keep it current: mark an item in_progress before starting it and completed as soon as it is done, then carry on with the work.`;
    return { content: text, details: { oldTodos, newTodos } };
  },
});
